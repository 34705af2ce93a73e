"""Prints a function with a chain of N elementwise linalg.generic ops."""
import sys

n = int(sys.argv[1])
print("#id = affine_map<(d0) -> (d0)>")
print("func.func @chain(%a: tensor<64xf32>) -> tensor<64xf32> {")
print("  %e = tensor.empty() : tensor<64xf32>")
prev = "%a"
for i in range(n):
    print(f"  %v{i} = linalg.generic {{indexing_maps = [#id, #id], iterator_types = [\"parallel\"]}}")
    print(f"      ins({prev} : tensor<64xf32>) outs(%e : tensor<64xf32>) {{")
    print("  ^bb0(%x: f32, %o: f32):")
    print("    %r = arith.mulf %x, %x : f32")
    print("    linalg.yield %r : f32")
    print("  } -> tensor<64xf32>")
    prev = f"%v{i}"
print(f"  return {prev} : tensor<64xf32>")
print("}")
