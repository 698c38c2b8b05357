"""The second reading's hand-typed words, CJK edges and corner brackets (real reports' wordings)."""

from __future__ import annotations

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.unwrap import second_reading, space_cjk
from envdoctor.explain.words import correct_words, one_edit


def _code(text: str) -> str:
    d = primary(diagnose_text(text))
    return d.code if d else "none"


def test_one_edit_is_a_change_an_insertion_a_deletion_or_a_swap():
    assert one_edit("memery", "memory") and one_edit("mempry", "memory")
    assert one_edit("misssing", "missing") and one_edit("complied", "compiled")
    assert not one_edit("memory", "memory") and not one_edit("memo", "memory")
    assert not one_edit("abcdef", "badcfe")


def test_misspelt_words_of_an_error_are_read_as_the_signatures_word():
    # https://github.com/NickWilkinson37/voxseg/issues/8 (the title)
    assert correct_words("CUDA out of mempry") == "CUDA out of memory"
    assert _code("CUDA out of mempry") == "ECUDA001"
    # https://github.com/tensorflow/tensorflow/issues/45821
    assert "missing" in correct_words("please pass me this file cudart64_110.dll its misssing here")
    assert correct_words("Insufficient shared memery") == "Insufficient shared memory"


def test_words_that_examples_spell_so_are_never_corrected():
    for text in ("The loader failed", "a shard of the model", "loss went down", "DataLoader workers",
                 "memoryview", "MEMERY", "mEmery"):
        assert correct_words(text) == text


def test_a_misspelt_word_alone_makes_no_claim():
    for text in ("I found a memery leak in my own code", "the shm is fine, the memery is not",
                 "my model complied a list of results"):
        d = primary(diagnose_text(text))
        assert d is None or d.category != "environment", (text, d)


def test_cjk_touching_a_name_gets_a_space():
    # https://github.com/chenyme/Chenyme-AAVT/issues/58
    line = "2.启动视频识别发现缺少cudnn_ops_infer64_8.dll，下载cudnn-windows-x86_64-8.9.7.29_cuda11-archive.zip"
    assert "缺少 cudnn_ops_infer64_8.dll" in space_cjk(line)
    assert _code(line) == "ECUDNN008"
    assert space_cjk("all ascii") == "all ascii"
    assert space_cjk("显存不足") == "显存不足"


def test_corner_brackets_around_a_library_read_as_quotes():
    # https://github.com/lltcggie/waifu2x-caffe/issues/62
    text = "Calling cuDNN failed, cannot find \u300ccudnn64_5.dll\u300d \nSystem:\nWindows 7 x64\n"
    assert "'cudnn64_5.dll'" in (second_reading(text, undo_wrap=False) or "")
    assert _code(text) == "ECUDNN008"


def test_a_localised_loader_message_reads_as_the_english_one():
    # glibc's zh_CN / ja / ru catalogues (translationproject.org, domain libc), and a fullwidth
    # colon where a translated page or an IME wrote one
    for text, code in (("ImportError: libcudart.so.11.0: 无法打开共享对象文件: 没有那个文件或目录", "ECUDA014"),
                       ("OSError: libcudnn.so.8：无法打开共享对象文件：没有这样的文件或目录", "ECUDNN008"),
                       ("ImportError: libcuda.so.1: 共有オブジェクトファイルを開けません: "
                        "そのようなファイルやディレクトリはありません", "ESYS001"),
                       ("ImportError: libcudart.so.10.1: невозможно открыть разделяемый объектный "
                        "файл: Нет такого файла или каталога", "ECUDA014")):
        assert _code(text) == code, text
    assert _code("FileNotFoundError: [Errno 2] 没有那个文件或目录: 'data/train.json'") == "none"


def test_a_localised_sigill_reads_as_the_english_one():
    english = _code("Illegal instruction (core dumped)")
    assert english in ("ESYS006", "ESYS020")
    # https://github.com/ricequant/rqalpha/issues/276, https://github.com/hiroi-sora/PaddleOCR-json/issues/170,
    # https://github.com/czodrowskilab/VSFlow/issues/9
    for text in ("## 5. 您出现的错误堆栈日志信息\n非法指令 (核心已转储)\n", "运行可执行文件报\"非法指令（核心已转储）\"",
                 "Downloading database pdb ...\nInstrucción ilegal (`core' generado)\n"):
        assert _code(text) == english, text
    assert _code("这是一条非法指令的说明") == "none"


def test_a_chinese_shells_killed_line_reads_as_killed():
    # https://github.com/tranleanh/edn-gtm/issues/2, https://github.com/crownpku/Somiao-Pinyin/issues/10
    assert _code("680 2975\n681 2975\n已杀死\n训练集有2975张图片，python train.py时出现上面的问题") == _code("Killed")
    assert _code("successfully opened CUDA library libcublas.so.10.0 locally\n已杀死") == _code("Killed")
    assert _code("已杀死服务器进程: 1234") == "none"


def test_a_localised_command_not_found_reads_as_bashs_english():
    # bash's catalogues (translationproject.org, domain bash)
    english = _code("bash: nvcc: command not found")
    assert english == "EBUILD001"
    for text in ("nvcc --version\n/bin/bash: 行 76: nvcc: 未找到命令", "bash: nvcc: コマンドが見つかりません",
                 "bash: nvcc: команда не найдена", "bash: nvcc: comando não encontrado"):
        assert _code(text) == english, text
    assert _code("bash: nvidia-smi: 未找到命令") == _code("bash: nvidia-smi: command not found")


def test_windows_loader_dialogs_name_the_missing_cuda_runtime():
    # https://github.com/xmrMiner/xmrMiner-Win64/issues/6, https://github.com/xmrMiner/xmrMiner-Win64/issues/8
    assert _code("The code execution cannot proceed because cudart64_80.dll was not found. "
                 "Reinstalling the program may fix this problem.") == "ECUDA014"
    assert _code("> The program can't start because cudart64_80.dll is missing from your computer.") == "ECUDA014"
    # https://github.com/dlunion/OpenPose/issues/13 (the same dialog in Chinese)
    assert _code("运行出错：由于找不到cublas64_80.dll,无法继续执行代码。重新安装程序可能会解决此问题") == "ECUDNN008"
    # TensorFlow's own dlerror on a machine without a GPU stays harmless
    # (https://github.com/monokim/AI_Aimbot/issues/9)
    d = primary(diagnose_text(
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
        "'cudart64_110.dll'; dlerror: cudart64_110.dll not found\nI tensorflow/stream_executor/cuda/"
        "cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a GPU set up on your machine.\n"))
    assert d is None or d.category != "environment"


def test_the_loaders_colon_typed_loosely_reads_as_the_loader_writes_it():
    from envdoctor.explain.unwrap import tight_colons
    # lines as people retype them (a French-typography space before the colon, or no space
    # after it): "libsscl.so.2 : cannot open shared object file : NO such file or directory",
    # "libncurses.so.5:cannot open shared object file : No such file or directory"
    assert tight_colons("libsscl.so.2 : cannot open shared object file : NO such file") == \
        "libsscl.so.2: cannot open shared object file: NO such file"
    assert tight_colons("libncurses.so.5:cannot open") == "libncurses.so.5: cannot open"
    for text in ("https://x.so:8080", "C:\\x.dll:12", "ratio 3 : 4", "a : b"):
        assert tight_colons(text) == text
    # synthetic: the same loose colons around the CUDA runtime
    assert _code("ImportError : libcudart.so.11.0 : cannot open shared object file : No such file "
                 "or directory") == "ECUDA014"


def test_the_cached_words_are_the_words_built_from_the_signatures(tmp_path, monkeypatch):
    """The words come from the ``sigwords`` cache entry after the first run: the same words as
    read from every example again."""
    import subprocess
    import sys

    from envdoctor.explain import signatures, words

    monkeypatch.setenv("ENVDOCTOR_CACHE_DIR", str(tmp_path))
    signatures._load.cache_clear()
    sigs = signatures.load_signatures()
    if not sigs or not isinstance(sigs[0].examples, signatures.CachedExamples):
        # this process built the signatures: a second process reads them from the cache
        code = ("from envdoctor.explain import signatures as s, words as w;"
                "g=s.load_signatures();b,seen=w._known(g);print(isinstance(g[0].examples,"
                " s.CachedExamples), len(b), len(seen))")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**__import__("os").environ, "ENVDOCTOR_CACHE_DIR": str(tmp_path)},
                             check=True).stdout.split()
        assert out[0] == "True"
        assert list(tmp_path.glob("sigwords-*.json"))
        built_buckets, built_seen = words._build(sigs)
        assert int(out[1]) == len(built_buckets) and int(out[2]) == len(set(built_seen))
    signatures._load.cache_clear()
    words._CACHE.clear()
    sigs = signatures.load_signatures()
    buckets, seen = words._known(sigs)
    built_buckets, built_seen = words._build(sigs)
    assert buckets == {(ws[0][0], len(ws[0])): tuple(ws) for ws in built_buckets}
    assert seen == frozenset(built_seen)
    assert "memory" in seen and ("m", 6) in buckets
    signatures._load.cache_clear()
    words._CACHE.clear()
