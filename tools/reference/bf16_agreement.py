#!/usr/bin/env python3
"""Top-1 agreement of the bf16 logits over the whole parity suite.

    python3 tools/reference/bf16_agreement.py BUILD_DIR

Runs linnet-parity --run bf16 on every bf16 artifact that the parity lit tests
(test/parity/*.test, test/parity/llama/*.test) left under
BUILD_DIR/test-lit/parity/**/Output (run them first) and sums, over every `logits` output:
  (i)   linnet-bf16 vs HF-bf16 top-1 (the PASS/FAIL lines, what the bar uses),
  (ii)  linnet-bf16 vs HF-f32 and (iii) HF-bf16 vs HF-f32 (the INFO lines).
HF-f32 is the same call computed in f32 from the same bf16 weights: the most
accurate answer at hand, so (ii) vs (iii) says whether linnet's bf16 is further
from the truth than Hugging Face's own bf16 is. Standard library only; prints
one line per case, the totals, and every row where two of the three top-1s differ.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# A RUN line of a parity test: %parity-case PACKAGE %testdata/REFERENCE/cases/C.json %t
RUN = re.compile(r"%parity-case\s+\S+\s+%testdata/(reference\S*)/cases/(\S+)\.json\s+%t")
VERDICT = re.compile(r"^(PASS|FAIL) call \d+ \S+\.logits: top-1 (\d+)/(\d+)")
INFO = re.compile(r"^INFO call \d+ \S+\.logits: vs HF-f32 top-1: linnet-bf16 (\d+)/(\d+), HF-bf16 (\d+)/(\d+);"
                  r".*differ \((\d+)\): linnet matches f32 at (\d+), HF-bf16 at (\d+)")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    build = Path(sys.argv[1]).resolve()
    parity = build / "bin/linnet-parity"
    lit_root = build / "test-lit/parity"
    keys = ["vs_hf_bf16", "rows", "linnet_vs_f32", "hf_bf16_vs_f32", "differ", "linnet_right", "hf_right"]
    totals = dict.fromkeys(keys, 0)
    details, missing = [], []
    print(f"{'case':50} {'lin~HFbf16':>10} {'lin~f32':>8} {'HFbf16~f32':>10}  differ: lin/HF right")
    for test in sorted((ROOT / "test/parity").rglob("*.test")):
        for tree, case in RUN.findall(test.read_text()):
            reference = ROOT / "test/data" / tree
            case_json = reference / "cases" / f"{case}.json"
            relative = test.relative_to(ROOT / "test/parity").parent
            artifact = lit_root / relative / "Output" / f"{test.name}.tmp" / f"{Path(case).name}-bf16.lnpkg"
            if not artifact.exists():
                missing.append(str(artifact))
                continue
            checkpoint = reference / json.loads(case_json.read_text())["checkpoint"]
            out = subprocess.run([str(parity), str(case_json), "--artifact", str(artifact), "--checkpoint",
                                  str(checkpoint), "--run", "bf16"], capture_output=True, text=True).stdout
            n = dict.fromkeys(keys, 0)
            for line in out.splitlines():
                if m := VERDICT.match(line):
                    n["vs_hf_bf16"] += int(m[2])
                    n["rows"] += int(m[3])
                elif m := INFO.match(line):
                    n["linnet_vs_f32"] += int(m[1])
                    n["hf_bf16_vs_f32"] += int(m[3])
                    n["differ"] += int(m[5])
                    n["linnet_right"] += int(m[6])
                    n["hf_right"] += int(m[7])
                elif line.startswith("INFO") and ": row " in line:
                    details.append(f"{case}: {line}")
            case = f"{tree}/{case}" if tree != "reference" else case
            if not n["rows"]:
                continue  # no logits output (generate, generate_until, sample, packed)
            for k in keys:
                totals[k] += n[k]
            r = n["rows"]
            print(f"{case:50} {n['vs_hf_bf16']:>4}/{r:<5} {n['linnet_vs_f32']:>3}/{r:<4} {n['hf_bf16_vs_f32']:>4}/{r:<5}"
                  f"  {n['differ']}: {n['linnet_right']}/{n['hf_right']}")
    r = totals["rows"]
    pct = lambda k: f"{totals[k]}/{r} = {100 * totals[k] / max(r, 1):.1f}%"
    print(f"\ntotal rows {r}")
    print(f"(i)   linnet-bf16 vs HF-bf16 top-1: {pct('vs_hf_bf16')}")
    print(f"(ii)  linnet-bf16 vs HF-f32  top-1: {pct('linnet_vs_f32')}")
    print(f"(iii) HF-bf16     vs HF-f32  top-1: {pct('hf_bf16_vs_f32')}")
    print(f"rows where linnet-bf16 and HF-bf16 differ: {totals['differ']}; linnet matches HF-f32 at "
          f"{totals['linnet_right']}, HF-bf16 at {totals['hf_right']}")
    for d in details:
        print(d)
    if missing:
        print("missing artifacts (run the parity lit tests first):\n  " + "\n  ".join(missing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
