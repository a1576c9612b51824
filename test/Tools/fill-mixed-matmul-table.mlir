// bench/fill_mixed_matmul_table.py rewrites the mixed-matmul table from a
// bench_mixed_matmul.py json: the leading comment kept, the provisional note
// replaced by the run's provenance, one row per shape whose two forced cuDNN
// plans both ran and passed (sorted; the generated kernel's figure 0 when it
// was not measured), the rest listed as left out.
// RUN: cp %tgc_src/compiler/lib/Transforms/MixedMatmulTable.inc %t.inc
// RUN: python3 %tgc_src/bench/fill_mixed_matmul_table.py %S/Inputs/bench_mixed_matmul.json --table %t.inc --results-dir bench/results/x | FileCheck %s --check-prefix=LOG
// RUN: FileCheck %s --input-file=%t.inc
// RUN: not python3 %tgc_src/bench/fill_mixed_matmul_table.py %S/Inputs/bench_mixed_matmul.json --table %t.inc --results-dir bench/results/x --only-none 2>&1 | FileCheck %s --check-prefix=BADARG

// LOG: 2 rows written to {{.*}}.inc; 2 left out (skipped, failed or unmeasured)
// LOG-NEXT: left out: M=16 K=4096 N=4096 scaled
// LOG-NEXT: left out: M=64 K=4096 N=4096 scaled
// CHECK: // TG_MIXED_MATMUL_ROW(weight, scaled, M, K, N, fused, dequant, generated):
// CHECK-NOT: PROVISIONAL
// CHECK: // MEASURED: tgc's plans forced
// CHECK: TG_MIXED_MATMUL_SOURCE("H200, cuDNN 91900, commit abc1234, 2026-12-02: bench/bench_mixed_matmul.py, bench/results/x")
// CHECK-NEXT: TG_MIXED_MATMUL_ROW("i8", false, 16, 4096, 4096, 30.0, 7.2, 0.0)
// CHECK-NEXT: TG_MIXED_MATMUL_ROW("i8", false, 8192, 4096, 4096, 450.0, 650.0, 0.0)
// CHECK-NOT: TG_MIXED_MATMUL_ROW
// BADARG: error: unrecognized arguments: --only-none
