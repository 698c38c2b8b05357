/* A fake libnvidia-ml.so.1: MODE is chosen at build time with -DMODE_CRASH / -DMODE_HANG /
 * -DMODE_GARBAGE. Built by the fault matrix with: gcc -shared -fPIC -o libnvidia-ml.so.1 */
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
