/* A fake libnvidia-ml.so.1: MODE is chosen at build time with -DMODE_CRASH / -DMODE_HANG /
 * -DMODE_GARBAGE, or -DMODE_UNKNOWN (nvmlInit returns NVML_ERROR_UNKNOWN, the container cgroup
 * case), -DMODE_LOST (two GPUs, the second NVML_ERROR_GPU_IS_LOST), -DMODE_RESET (one GPU whose
 * temperature query says NVML_ERROR_RESET_REQUIRED). Built by the fault matrices with:
 * gcc -shared -fPIC -o libnvidia-ml.so.1 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

static int fail(void) {
#if defined(MODE_CRASH)
    volatile int *p = 0;
    return *p;               /* SIGSEGV inside nvmlInit, as a broken driver install does */
#elif defined(MODE_HANG)
    for (;;) pause();        /* blocks in C: no Python thread can interrupt it */
#else
    return 0;
#endif
}

#if defined(MODE_UNKNOWN) || defined(MODE_LOST) || defined(MODE_RESET)
/* NVML return codes (nvml.h): 0 success, 3 not supported, 15 GPU is lost, 16 reset required,
 * 999 unknown. */
#if defined(MODE_UNKNOWN)
int nvmlInitWithFlags(unsigned int flags) { (void)flags; return 999; }
#else
int nvmlInitWithFlags(unsigned int flags) { (void)flags; return 0; }
#endif
int nvmlInit_v2(void) { return nvmlInitWithFlags(0); }
int nvmlShutdown(void) { return 0; }
int nvmlSystemGetDriverVersion(char *buf, unsigned int len) {
    strncpy(buf, "550.54.15", len);
    return 0;
}
int nvmlSystemGetCudaDriverVersion_v2(int *v) { *v = 12040; return 0; }
#if defined(MODE_LOST)
int nvmlDeviceGetCount_v2(unsigned int *n) { *n = 2; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **h) {
    *h = (void *)(long)(i + 1);
    return i == 1 ? 15 : 0;
}
#else
int nvmlDeviceGetCount_v2(unsigned int *n) { *n = 1; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **h) { *h = (void *)(long)(i + 1); return 0; }
#endif
int nvmlDeviceGetName(void *h, char *buf, unsigned int len) {
    (void)h;
    strncpy(buf, "NVIDIA H100 80GB HBM3", len);
    return 0;
}
#if defined(MODE_RESET)
int nvmlDeviceGetTemperature(void *h, int sensor, unsigned int *t) {
    (void)h; (void)sensor; (void)t;
    return 16;
}
#endif
const char *nvmlErrorString(int r) {
    switch (r) {
    case 3: return "Not Supported";
    case 15: return "GPU is lost";
    case 16: return "GPU requires reset";
    default: return "Unknown Error";
    }
}
#else
int nvmlInit(void) { return fail(); }
int nvmlInit_v2(void) { return fail(); }
int nvmlInitWithFlags(unsigned int flags) { (void)flags; return fail(); }
int nvmlShutdown(void) { return 0; }
int nvmlSystemGetDriverVersion(char *buf, unsigned int len) {
    const char *v = "\xff\xfe garbage \x01\x02";
    strncpy(buf, v, len);
    return 0;
}
int nvmlSystemGetCudaDriverVersion(int *v) { *v = 999999999; return 0; }
int nvmlSystemGetCudaDriverVersion_v2(int *v) { *v = 999999999; return 0; }
int nvmlDeviceGetCount(unsigned int *n) { *n = 3; return 0; }
int nvmlDeviceGetCount_v2(unsigned int *n) { *n = 3; return 0; }
int nvmlDeviceGetHandleByIndex(unsigned int i, void **h) { (void)i; (void)h; return 999; }
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **h) { (void)i; (void)h; return 999; }
const char *nvmlErrorString(int r) { (void)r; return "fake NVML error"; }
#endif
