#!/usr/bin/env python3
"""linnet against llama.cpp and PyTorch on the same Phi-3-mini-shaped weights.

    make bench                                   # = python3 tools/bench/compare.py
    python3 tools/bench/compare.py [--layers N] [--skip linnet,llamacpp,torch]
                                   [--reuse] [--json FILE]

See tools/bench/README.md and docs/bench.md ("Against llama.cpp and PyTorch").
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
VENV = REPO / "build" / "bench-venv"
REQUIREMENTS = HERE / "requirements.txt"
REFERENCE_REQUIREMENTS = REPO / "tools" / "reference" / "requirements.txt"
REFERENCE_VENV = REPO / "build" / "reference-venv"
STAMP = VENV / ".linnet-requirements.sha256"
SHARE_PTH = "linnet-reference-venv.pth"


# --------------------------------------------------------------------------- venv

def _inside_venv() -> bool:
    try:
        return Path(sys.prefix).resolve() == VENV.resolve()
    except OSError:
        return False


def _site_packages(venv: Path) -> Path:
    return venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"


def _reference_venv_usable() -> bool:
    """build/reference-venv holds exactly tools/reference/requirements.txt (its own stamp)."""
    stamp = REFERENCE_VENV / ".linnet-requirements.sha256"
    if not stamp.exists() or not _site_packages(REFERENCE_VENV).is_dir():
        return False
    want = hashlib.sha256(REFERENCE_REQUIREMENTS.read_bytes()).hexdigest()
    return stamp.read_text().strip() == want


def enter_venv() -> None:
    """Run inside build/bench-venv, creating and filling it first if needed.

    When build/reference-venv is there with the same pins, the bench venv sees
    its site-packages through a .pth file (appended to sys.path, after the
    bench venv's own), so pip finds torch & co. already satisfied and only
    gguf and llama-cpp-python are installed: no second 3 GB torch download.
    """
    if _inside_venv():
        return
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"[venv] creating {VENV}", flush=True)
        subprocess.check_call([sys.executable, "-m", "venv", str(VENV)])
    site = _site_packages(VENV)
    pth = site / SHARE_PTH
    share = _reference_venv_usable()
    if share:
        pth.write_text(str(_site_packages(REFERENCE_VENV)) + "\n")
    elif pth.exists():
        pth.unlink()
    h = hashlib.sha256(REQUIREMENTS.read_bytes() + REFERENCE_REQUIREMENTS.read_bytes())
    h.update(b"shared" if share else b"own")
    want = h.hexdigest()
    have = STAMP.read_text().strip() if STAMP.exists() else ""
    if have != want:
        env = dict(os.environ)
        # llama-cpp-python builds llama.cpp from source: for this CPU, without
        # the parts the benchmark does not use.
        env.setdefault("CMAKE_ARGS", "-DGGML_NATIVE=ON -DLLAVA_BUILD=OFF -DLLAMA_CURL=OFF "
                                     "-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF")
        env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        print(f"[venv] installing {REQUIREMENTS.relative_to(REPO)}"
              + (" (torch & co. shared from build/reference-venv)" if share
                 else " (first run downloads ~3 GB)")
              + "; llama-cpp-python compiles llama.cpp (several minutes, once)", flush=True)
        subprocess.check_call(["nice", "-n", "19", str(python), "-m", "pip", "install",
                               "--disable-pip-version-check", "-r", str(REQUIREMENTS)], env=env)
        STAMP.write_text(want + "\n")
    env = dict(os.environ)
    env.setdefault("PYTHONHASHSEED", "0")
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.execve(str(python), [str(python), str(Path(__file__).resolve()), *sys.argv[1:]], env)


# --------------------------------------------------------------------------- model

# Phi-3-mini-4k-instruct's config.json values (microsoft/Phi-3-mini-4k-instruct),
# written by hand; only num_hidden_layers changes with --layers.
PHI3_MINI = {
    "architectures": ["Phi3ForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 1,
    "embd_pdrop": 0.0,
    "eos_token_id": 32000,
    "hidden_act": "silu",
    "hidden_size": 3072,
    "initializer_range": 0.02,
    "intermediate_size": 8192,
    "max_position_embeddings": 4096,
    "model_type": "phi3",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 32,
    "original_max_position_embeddings": 4096,
    "pad_token_id": 32000,
    "partial_rotary_factor": 1.0,
    "resid_pdrop": 0.0,
    "rms_norm_eps": 1e-05,
    "rope_scaling": None,
    "rope_theta": 10000.0,
    "sliding_window": 2047,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "use_cache": True,
    "vocab_size": 32064,
}
SEED = 0
# Bump when the checkpoint or GGUF written for a config changes.
GENERATOR_VERSION = 1
EMBEDDED = REPO / "test" / "data" / "embedded"
TOKENIZER_FILES = ["tokenizer.model", "tokenizer.json", "tokenizer_config.json",
                   "special_tokens_map.json"]
# Phi-3-mini's added tokens sit at 32000.. (<|endoftext|>, <|assistant|>, ...);
# the embedded tokenizer has the same ones, in the same order, from 1500.
EMBEDDED_ADDED_BASE = 1500
PHI3_ADDED_BASE = 32000
PREFILL_LENGTHS = (128, 512)
DECODE_STEPS = 32
REPEATS = 3


def model_config(layers: int) -> dict:
    cfg = dict(PHI3_MINI)
    cfg["num_hidden_layers"] = layers
    return cfg


def model_key(layers: int) -> str:
    blob = json.dumps({"config": model_config(layers), "seed": SEED,
                       "generator": GENERATOR_VERSION}, sort_keys=True).encode()
    return f"phi3-mini-L{layers}-{hashlib.sha256(blob).hexdigest()[:10]}"


def peak_rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ checkpoint

def make_checkpoint(out: Path, layers: int, threads: int) -> None:
    """A random bf16 Phi3ForCausalLM with save_pretrained, in shards of 2 GB
    (a single file would be serialised in memory: params + a copy)."""
    import shutil
    import torch
    from transformers import Phi3Config, Phi3ForCausalLM

    torch.set_num_threads(threads)
    torch.manual_seed(SEED)
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    config_text = json.dumps(model_config(layers), indent=2) + "\n"
    (tmp / "config.json").write_text(config_text)
    config = Phi3Config.from_pretrained(tmp)
    t0 = time.perf_counter()
    # Created directly in bf16; _init_weights draws normal(0, 0.02) for the
    # linear and embedding weights, ones for the norms.
    model = Phi3ForCausalLM._from_config(config, dtype=torch.bfloat16)
    model.eval()
    n = sum(p.numel() for p in model.parameters())
    log(f"initialised {n / 1e9:.3f}B parameters in {time.perf_counter() - t0:.0f} s")
    model.save_pretrained(tmp, safe_serialization=True, max_shard_size="2GB")
    (tmp / "config.json").write_text(config_text)  # the hand-written one, as is
    for name in TOKENIZER_FILES:
        shutil.copy(EMBEDDED / name, tmp / name)
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    log(f"checkpoint written in {time.perf_counter() - t0:.0f} s, peak RSS "
        f"{peak_rss_bytes() / 2**30:.1f} GiB")


def safetensors_arrays(ckpt: Path) -> dict:
    """name -> read-only np.memmap of the checkpoint's bf16 tensors (as uint16)."""
    import numpy as np

    index = ckpt / "model.safetensors.index.json"
    if index.exists():
        files = sorted(set(json.loads(index.read_text())["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    arrays = {}
    for f in files:
        path = ckpt / f
        with open(path, "rb") as fh:
            n = int.from_bytes(fh.read(8), "little")
            header = json.loads(fh.read(n))
        for name, info in header.items():
            if name == "__metadata__":
                continue
            if info["dtype"] != "BF16":
                raise SystemExit(f"{path}: {name} is {info['dtype']}, expected BF16")
            begin, end = info["data_offsets"]
            shape = tuple(info["shape"])
            arrays[name] = np.memmap(path, dtype=np.uint16, mode="r", offset=8 + n + begin,
                                     shape=shape)
            assert arrays[name].nbytes == end - begin
    return arrays


def parameter_bytes(ckpt: Path) -> int:
    return sum(a.nbytes for a in safetensors_arrays(ckpt).values())


# ------------------------------------------------------------------------ GGUF

def make_gguf(ckpt: Path, out: Path) -> None:
    """The checkpoint's weights, unchanged (bf16; norms widened to f32 exactly),
    as llama.cpp's phi3 architecture, with a SentencePiece ("llama") vocabulary
    from the embedded tokenizer.model padded to 32064 entries."""
    import numpy as np
    import gguf
    import sentencepiece

    cfg = json.loads((ckpt / "config.json").read_text())
    h, heads = cfg["hidden_size"], cfg["num_attention_heads"]
    layers, vocab = cfg["num_hidden_layers"], cfg["vocab_size"]
    arrays = safetensors_arrays(ckpt)
    tmp = out.with_name(out.name + ".tmp")
    w = gguf.GGUFWriter(tmp, gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.PHI3])
    w.add_name("phi3-mini-random")
    w.add_context_length(cfg["max_position_embeddings"])
    w.add_rope_scaling_orig_ctx_len(cfg["original_max_position_embeddings"])
    w.add_embedding_length(h)
    w.add_feed_forward_length(cfg["intermediate_size"])
    w.add_block_count(layers)
    w.add_head_count(heads)
    w.add_head_count_kv(cfg["num_key_value_heads"])
    w.add_layer_norm_rms_eps(cfg["rms_norm_eps"])
    w.add_rope_dimension_count(h // heads)
    w.add_rope_freq_base(cfg["rope_theta"])
    w.add_sliding_window(cfg["sliding_window"])
    w.add_file_type(gguf.LlamaFileType.MOSTLY_BF16)

    # Vocabulary: the SentencePiece pieces, then Phi-3's added tokens at
    # 32000.., the rest unused padding up to vocab_size.
    sp = sentencepiece.SentencePieceProcessor(model_file=str(ckpt / "tokenizer.model"))
    tokens, scores, types = [], [], []
    for i in range(sp.vocab_size()):
        tokens.append(sp.id_to_piece(i).encode("utf-8"))
        scores.append(sp.get_score(i))
        if sp.is_unknown(i):
            types.append(gguf.TokenType.UNKNOWN)
        elif sp.is_control(i):
            types.append(gguf.TokenType.CONTROL)
        elif sp.is_byte(i):
            types.append(gguf.TokenType.BYTE)
        elif sp.is_unused(i):
            types.append(gguf.TokenType.UNUSED)
        else:
            types.append(gguf.TokenType.NORMAL)
    added = json.loads((ckpt / "tokenizer_config.json").read_text())["added_tokens_decoder"]
    added = {int(k) - EMBEDDED_ADDED_BASE + PHI3_ADDED_BASE: v["content"]
             for k, v in added.items() if int(k) >= EMBEDDED_ADDED_BASE}
    for i in range(len(tokens), vocab):
        if i in added:
            tokens.append(added[i].encode("utf-8"))
            types.append(gguf.TokenType.CONTROL)
        else:
            tokens.append(f"[PAD{i}]".encode("utf-8"))
            types.append(gguf.TokenType.UNUSED)
        scores.append(-1000.0)
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(cfg["bos_token_id"])
    w.add_eos_token_id(cfg["eos_token_id"])
    w.add_unk_token_id(0)
    w.add_pad_token_id(cfg["pad_token_id"])
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)

    def bf16(gguf_name: str, hf_name: str) -> None:
        a = arrays.pop(hf_name)
        w.add_tensor(gguf_name, a, raw_dtype=gguf.GGMLQuantizationType.BF16)

    def norm(gguf_name: str, hf_name: str) -> None:
        a = arrays.pop(hf_name)
        w.add_tensor(gguf_name, (a.astype(np.uint32) << 16).view(np.float32))

    bf16("token_embd.weight", "model.embed_tokens.weight")
    for i in range(layers):
        p = f"model.layers.{i}."
        norm(f"blk.{i}.attn_norm.weight", p + "input_layernorm.weight")
        bf16(f"blk.{i}.attn_qkv.weight", p + "self_attn.qkv_proj.weight")
        bf16(f"blk.{i}.attn_output.weight", p + "self_attn.o_proj.weight")
        norm(f"blk.{i}.ffn_norm.weight", p + "post_attention_layernorm.weight")
        bf16(f"blk.{i}.ffn_up.weight", p + "mlp.gate_up_proj.weight")  # gate, then up
        bf16(f"blk.{i}.ffn_down.weight", p + "mlp.down_proj.weight")
    norm("output_norm.weight", "model.norm.weight")
    bf16("output.weight", "lm_head.weight")
    if arrays:
        raise SystemExit(f"GGUF: tensors left unmapped: {sorted(arrays)}")
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    tmp.rename(out)


# ------------------------------------------------------------------ frameworks

def random_tokens(n: int, rows: int = 1, salt: int = 0):
    import numpy as np
    rng = np.random.default_rng(1000 + 17 * n + salt)
    return rng.integers(3, 30000, size=(rows, n)).tolist()


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def child_llamacpp(gguf_path: Path, threads: int, max_seq: int) -> dict:
    import llama_cpp

    res = {"version": llama_cpp.__version__, "threads": threads}
    t0 = time.perf_counter()
    llm = llama_cpp.Llama(model_path=str(gguf_path), n_ctx=max_seq, n_batch=512, n_ubatch=512,
                          n_threads=threads, n_threads_batch=threads, use_mmap=True,
                          verbose=False, seed=0)
    res["load_s"] = time.perf_counter() - t0
    try:  # the GGUF's vocabulary works (no figure depends on it)
        res["tokenizer_check"] = llm.detokenize(llm.tokenize(b"The import statement")).decode()
    except Exception as e:  # noqa: BLE001
        res["tokenizer_check"] = f"failed: {e}"
    for s in PREFILL_LENGTHS:
        toks = random_tokens(s)[0]
        times = []
        for rep in range(1 + REPEATS):
            llm.reset()
            t = time.perf_counter()
            llm.eval(toks)
            if rep:
                times.append(time.perf_counter() - t)
            log(f"llama.cpp prefill S={s} call {rep}: {time.perf_counter() - t:.2f} s")
        res[f"prefill_s{s}_tokens_per_s"] = s / median(times)
    # Decode: one prompt token at position 0, one warm-up step, then 32 timed steps.
    steps = random_tokens(DECODE_STEPS + 2, salt=1)[0]
    llm.reset()
    llm.eval(steps[:1])
    llm.eval(steps[1:2])
    t = time.perf_counter()
    for tok in steps[2:]:
        llm.eval([tok])
    res["decode_b1_tokens_per_s"] = DECODE_STEPS / (time.perf_counter() - t)
    res["decode_b8_tokens_per_s"] = None
    res["decode_b8_tokens_per_s_why"] = ("not measured: llama-cpp-python's Llama evaluates "
                                         "one sequence; 8 rows need the low-level batch API")
    res["peak_rss_bytes"] = peak_rss_bytes()
    return res


def child_torch(ckpt: Path, threads: int, max_seq: int) -> dict:
    import torch
    import transformers
    from transformers import Phi3ForCausalLM

    torch.set_num_threads(threads)
    res = {"version": f"torch {torch.__version__}, transformers {transformers.__version__}",
           "threads": threads}
    t0 = time.perf_counter()
    model = Phi3ForCausalLM.from_pretrained(ckpt, dtype=torch.bfloat16)
    model.eval()
    res["load_s"] = time.perf_counter() - t0
    res["attn_implementation"] = model.config._attn_implementation
    with torch.inference_mode():
        for s in PREFILL_LENGTHS:
            ids = torch.tensor(random_tokens(s))
            times = []
            for rep in range(1 + REPEATS):
                t = time.perf_counter()
                # As generate's prefill: logits of the last position only.
                model(ids, use_cache=True, logits_to_keep=1)
                if rep:
                    times.append(time.perf_counter() - t)
                log(f"PyTorch prefill S={s} call {rep}: {time.perf_counter() - t:.2f} s")
            res[f"prefill_s{s}_tokens_per_s"] = s / median(times)
        for b in (1, 8):
            steps = torch.tensor(random_tokens(DECODE_STEPS + 2, rows=b, salt=1))
            out = model(steps[:, :1], use_cache=True)
            past = out.past_key_values
            out = model(steps[:, 1:2], past_key_values=past, use_cache=True)
            past = out.past_key_values
            t = time.perf_counter()
            for j in range(2, DECODE_STEPS + 2):
                out = model(steps[:, j:j + 1], past_key_values=past, use_cache=True)
                past = out.past_key_values
            res[f"decode_b{b}_tokens_per_s"] = b * DECODE_STEPS / (time.perf_counter() - t)
            log(f"PyTorch decode B={b}: {res[f'decode_b{b}_tokens_per_s']:.2f} tokens/s")
    res["peak_rss_bytes"] = peak_rss_bytes()
    return res


def run_child(kind: str, *args: str) -> dict:
    """compare.py --child KIND ARGS... in its own process (own RSS); its JSON result."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", kind, *args]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{kind} exited with {proc.returncode}")
    if kind in ("checkpoint", "gguf"):
        sys.stdout.write(proc.stdout)
        res = {}
    else:
        res = json.loads(proc.stdout.strip().splitlines()[-1])
    res["wall_s"] = time.perf_counter() - t0
    return res


def run_linnet(linnet: Path, ckpt: Path, max_seq: int) -> dict:
    import shutil
    if not linnet.exists():
        raise RuntimeError(f"{linnet} missing: run `make build` first")
    # A private copy of linnet and linnet-run (found beside it), so that a
    # rebuild of build/ during the long run cannot swap them midway; from
    # build/bench/bin the standard library is still found (../../../stdlib).
    snap = REPO / "build" / "bench" / "bin"
    snap.mkdir(parents=True, exist_ok=True)
    for exe in (linnet, linnet.parent / "linnet-run"):
        # Not while it is being linked: executable and unchanged for 2 s.
        for _ in range(300):
            before = exe.stat()
            time.sleep(2)
            after = exe.stat()
            if os.access(exe, os.X_OK) and (before.st_size, before.st_mtime_ns) == \
                    (after.st_size, after.st_mtime_ns):
                break
        else:
            raise RuntimeError(f"{exe} is not a finished executable")
        tmp = snap / (exe.name + ".tmp")
        shutil.copy2(exe, tmp)
        tmp.replace(snap / exe.name)
    linnet = snap / "linnet"
    cmd = [str(linnet), "bench", str(REPO / "models" / "phi3"), "--checkpoint", str(ckpt),
           "--bind", "T=bf16", "--bind", f"MaxSeq={max_seq}", "--json"]
    log("linnet: " + " ".join(cmd))
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"linnet bench exited with {proc.returncode}")
    res = json.loads(proc.stdout)
    res["wall_s"] = time.perf_counter() - t0
    return res


# ----------------------------------------------------------------------- table

ROWS = [  # key, label, scale, digits
    ("build_s", "build s (linnet: Batch 1 compile)", 1, 1),
    ("load_s", "load s", 1, 2),
    ("prefill_s128_tokens_per_s", "prefill S=128 tok/s", 1, 1),
    ("prefill_s512_tokens_per_s", "prefill S=512 tok/s", 1, 1),
    ("decode_b1_tokens_per_s", "decode B=1 tok/s", 1, 2),
    ("decode_b8_tokens_per_s", "decode B=8 tok/s", 1, 2),
    ("peak_rss_bytes", "peak RSS GiB", 2**-30, 2),
    ("decode_b1_bw_fraction", "decode B=1 / bandwidth", 1, 3),
]
FRAMEWORKS = [("linnet", "linnet"), ("llamacpp", "llama.cpp"), ("torch", "PyTorch")]


def fmt(v, digits):
    return "-" if v is None else f"{v:.{digits}f}"


def table(results: dict) -> str:
    cols = ["figure"] + [label for _, label in FRAMEWORKS] + ["linnet/llama.cpp", "linnet/PyTorch"]
    rows = []
    for key, label, scale, digits in ROWS:
        vals = [results.get(fw, {}).get(key) for fw, _ in FRAMEWORKS]
        vals = [None if v is None else v * scale for v in vals]
        ratios = [None if vals[0] is None or v is None or v == 0 else vals[0] / v
                  for v in vals[1:]]
        rows.append([label] + [fmt(v, digits) for v in vals] + [fmt(r, 2) for r in ratios])
    widths = [max(len(r[i]) for r in rows + [cols]) for i in range(len(cols))]
    line = lambda r: "| " + " | ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                       for i, (c, w) in enumerate(zip(r, widths))) + " |"
    out = [line(cols), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(r) for r in rows]
    return "\n".join(out)


# ------------------------------------------------------------------------ main

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", type=int, default=32,
                    help="decoder layers (default 32, Phi-3-mini; fewer: same per-layer shapes)")
    ap.add_argument("--skip", default="", help="comma list of linnet,llamacpp,torch to leave out")
    ap.add_argument("--reuse", action="store_true",
                    help="take a framework's figures from the last run on this model "
                         "(build/bench/KEY/results-FW.json) instead of measuring it again")
    ap.add_argument("--json", metavar="FILE", help="write everything measured to FILE")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="threads for llama.cpp and PyTorch (default: all cores; linnet's "
                         "OpenMP takes OMP_NUM_THREADS, else one per hardware thread)")
    ap.add_argument("--max-seq", type=int, default=1024,
                    help="KV cache positions: linnet's MaxSeq and llama.cpp's n_ctx (default "
                         "1024; linnet's default, 4096, needs 12.9 GB of Batch = 8 cache at "
                         "32 layers, beside the 7.6 GB of weights)")
    ap.add_argument("--linnet", default=str(REPO / "build" / "bin" / "linnet"),
                    help="the linnet executable (default build/bin/linnet)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("child_args", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    enter_venv()

    if args.child:
        a = args.child_args
        if args.child == "checkpoint":
            make_checkpoint(Path(a[0]), int(a[1]), int(a[2]))
            return 0
        if args.child == "gguf":
            make_gguf(Path(a[0]), Path(a[1]))
            return 0
        fn = {"llamacpp": child_llamacpp, "torch": child_torch}[args.child]
        print(json.dumps(fn(Path(a[0]), int(a[1]), int(a[2]))), flush=True)
        return 0

    if args.layers < 1:
        ap.error("--layers: at least 1")
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    unknown = skip - {fw for fw, _ in FRAMEWORKS}
    if unknown:
        ap.error(f"--skip: unknown {sorted(unknown)}")
    t_start = time.perf_counter()
    key = model_key(args.layers)
    work = REPO / "build" / "bench" / key
    ckpt = work / "hf"
    gguf_path = work / "model-bf16.gguf"
    work.mkdir(parents=True, exist_ok=True)
    prep = {}
    if not (ckpt / "config.json").exists():
        log(f"writing the random bf16 checkpoint ({args.layers} layers) to {ckpt}")
        t = time.perf_counter()
        run_child("checkpoint", str(ckpt), str(args.layers), str(args.threads))
        prep["checkpoint_s"] = time.perf_counter() - t
    else:
        log(f"reusing {ckpt}")
    if "llamacpp" not in skip and not gguf_path.exists():
        log(f"converting to {gguf_path}")
        t = time.perf_counter()
        run_child("gguf", str(ckpt), str(gguf_path))
        prep["gguf_s"] = time.perf_counter() - t
    pbytes = parameter_bytes(ckpt)

    results = {}
    for fw, label in FRAMEWORKS:
        cache = work / f"results-{fw}.json"
        if fw in skip:
            continue
        if args.reuse and cache.exists():
            cached = json.loads(cache.read_text())
            if cached.get("max_seq", args.max_seq) == args.max_seq:
                log(f"{label}: figures from {cache}")
                cached["reused"] = str(cache)
                results[fw] = cached
                continue
            log(f"{label}: {cache} was measured with another --max-seq: measuring again")
        log(f"{label}: measuring")
        try:
            if fw == "linnet":
                res = run_linnet(Path(args.linnet).resolve(), ckpt, args.max_seq)
            elif fw == "llamacpp":
                res = run_child("llamacpp", str(gguf_path), str(args.threads), str(args.max_seq))
            else:
                res = run_child("torch", str(ckpt), str(args.threads), str(args.max_seq))
        except (RuntimeError, ValueError) as e:
            log(f"{label}: failed: {e}")
            results[fw] = {"error": str(e)}
            continue
        res["max_seq"] = args.max_seq
        cache.write_text(json.dumps(res, indent=2) + "\n")
        results[fw] = res

    machine = results.get("linnet", {}).get("machine", {})
    bw = machine.get("read_bandwidth_bytes_per_s")
    for res in results.values():
        d = res.get("decode_b1_tokens_per_s")
        res["decode_b1_bw_fraction"] = d * pbytes / bw if d and bw else None

    print()
    print(f"Phi-3-mini shapes, {args.layers} layers, random bf16 weights "
          f"({pbytes / 1e9:.2f} GB of parameters = bytes read per decode token), "
          f"{args.threads} threads")
    print(table(results))
    if machine:
        print(f"machine (linnet bench): read bandwidth {bw / 1e9:.1f} GB/s, bf16 peak "
              f"{machine['bf16_peak_flops_per_s'] / 1e9:.1f} GFLOP/s "
              f"({machine['peak_instruction']}), {machine['threads']} threads")
    else:
        print("machine: not measured (linnet skipped or failed)")
    for fw, label in FRAMEWORKS:
        if "error" in results.get(fw, {}):
            print(f"{label}: {results[fw]['error']}")
        if "reused" in results.get(fw, {}):
            print(f"{label}: figures of an earlier run (--reuse): {results[fw]['reused']}")
        if "version" in results.get(fw, {}):
            print(f"{label}: {results[fw]['version']}, {results[fw]['threads']} threads")
    if "llamacpp" in results and "error" not in results["llamacpp"]:
        print("llama.cpp decode B=8: " + results["llamacpp"]["decode_b8_tokens_per_s_why"])
    wall = time.perf_counter() - t_start
    print(f"wall time {wall:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "model": {"key": key, "config": model_config(args.layers), "seed": SEED,
                      "checkpoint": str(ckpt), "gguf": str(gguf_path),
                      "parameter_bytes": pbytes},
            "threads": args.threads, "machine": machine, "prepare_s": prep,
            "results": results, "wall_s": wall}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
