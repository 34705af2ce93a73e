# Prints a big Linnet program for the graph view's size tests:
#   big_program.py KIND N
# reassign-one-line  one line: `var a = x`, then N times `a = a + x`
# loops-after-locals N locals, then N `while` loops over one counter
# block-chain        N blocks, each calling the one below once (D0 .. DN)
# block-doubling     N blocks, each calling the one below twice
# fan-in             N statements `let a_i = a_{i-1} + x`: every one also
#                    reads the input, so dot's edges span many ranks
# call-chain         N free functions, each calling the one before
import sys

kind, n = sys.argv[1], int(sys.argv[2])
out = sys.stdout
if kind == "reassign-one-line":
    out.write("module one pub entry run(x: Tensor[4; f32]) -> Tensor[4; f32] { var a = x")
    out.write(" a = a + x" * n)
    out.write(" return a }\n")
elif kind == "loops-after-locals":
    out.write("module loops\n\npub entry run(x: Tensor[4; f32]) -> i32 {\n")
    for i in range(n):
        out.write(f"    let a{i} = x\n")
    out.write("    var k: i32 = 0\n")
    for i in range(n):
        out.write(f"    while k < {i} {{\n        k = k + 1\n    }}\n")
    out.write("    return k\n}\n")
elif kind in ("block-chain", "block-doubling"):
    call = "inner.forward(inner.forward(x))" if kind == "block-doubling" else "inner.forward(x)"
    out.write("module chain\n\npub block D0<H: Dim> {\n    param w: Tensor[H; f32]\n\n")
    out.write("    pub fn forward(x: Tensor[H; f32]) -> Tensor[H; f32] {\n        return x * w\n    }\n}\n")
    for i in range(1, n + 1):
        kw = "entry" if i == n else "fn"
        out.write(f"\npub block D{i}<H: Dim> {{\n    sub inner: D{i - 1}<H>\n\n")
        out.write(f"    pub {kw} forward(x: Tensor[H; f32]) -> Tensor[H; f32] {{\n")
        out.write(f"        return {call}\n    }}\n}}\n")
elif kind == "fan-in":
    out.write("module fan\n\npub entry run(x: Tensor[4; f32]) -> Tensor[4; f32] {\n    let a0 = x\n")
    for i in range(1, n):
        out.write(f"    let a{i} = a{i - 1} + x\n")
    out.write(f"    return a{n - 1}\n}}\n")
elif kind == "call-chain":
    out.write("module calls\n\nfn g0(x: f32) -> f32 {\n    return x\n}\n")
    for i in range(1, n):
        out.write(f"\nfn g{i}(x: f32) -> f32 {{\n    return g{i - 1}(x)\n}}\n")
    out.write(f"\npub entry run(x: f32) -> f32 {{\n    return g{n - 1}(x)\n}}\n")
else:
    sys.exit(f"unknown kind {kind}")
