// One remark per popped pair, naming both loops (file:line:col) and the level, the seed's text
// first: the refused pair L0-L1 (popped twice: before and after L0 absorbs L2), the fused L0-L2.
// The same decisions as LLVM optimization records (--remarks-yaml), File = the input's path.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o /dev/null 2>&1 | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks-yaml %t.yaml -o /dev/null
// RUN: filecheck %s --input-file %t.yaml --check-prefix=YAML

func.func @explain(%a: memref<64xf32>, %out: memref<64xf32>, %out2: memref<64xf32>) {
  %t = memref.alloc() : memref<65xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<65xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i + 1] : memref<65xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<65xf32>
    affine.store %x, %out2[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:10:3: missed: [STOP FUSION] negative distance dep in def-use: {{.*}}.mlir:10:3 and {{.*}}.mlir:14:3, level = 0, profit = 512 (in @explain) [RAW on memref.alloc ({{.*}}:9:8), distances { [d = -1] }]
// CHECK-NEXT: {{.*}}.mlir:10:3: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:10:3 and {{.*}}.mlir:18:3 profit = 512 (in @explain)
// CHECK-NEXT: {{.*}}.mlir:10:3: missed: [STOP FUSION] negative distance dep in def-use: {{.*}}.mlir:10:3 and {{.*}}.mlir:14:3, level = 0, profit = 504 (in @explain) [RAW on memref.alloc ({{.*}}:9:8), distances { [d = -1] }]
// CHECK-NEXT: {{.*}}.mlir:19:10: passed: [SCALAR REPLACEMENT] load replaced by the value stored to the same address earlier in the block (in @explain)
// CHECK-NEXT: analysis: numLoopsFused = 1

// YAML: --- !Missed
// YAML-NEXT: Pass:            fusion
// YAML-NEXT: Name:            NegativeDistance
// YAML-NEXT: DebugLoc:        { File: '{{.*}}explain_pair_remarks.mlir', Line: 10, Column: 3 }
// YAML-NEXT: Function:        explain
// YAML-NEXT: Args:
// YAML-NEXT:   - String:          '[STOP FUSION] negative distance dep in def-use: '
// YAML-NEXT:   - Loop1:           '{{.*}}.mlir:10:3'
// YAML-NEXT:     DebugLoc:        { File: '{{.*}}explain_pair_remarks.mlir', Line: 10, Column: 3 }
// YAML-NEXT:   - String:          ' and '
// YAML-NEXT:   - Loop2:           '{{.*}}.mlir:14:3'
// YAML-NEXT:     DebugLoc:        { File: '{{.*}}explain_pair_remarks.mlir', Line: 14, Column: 3 }
// YAML-NEXT:   - String:          ', level = '
// YAML-NEXT:   - Level:           '0'
// YAML-NEXT:   - String:          ', profit = '
// YAML-NEXT:   - Profit:          '512'
// YAML-NEXT:   - String:          ' ['
// YAML-NEXT:   - Detail:          'RAW on memref.alloc ({{.*}}:9:8), distances { [d = -1] }'
// YAML-NEXT:   - String:          ']'
// YAML-NEXT: --- !Passed
// YAML-NEXT: Pass:            fusion
// YAML-NEXT: Name:            LoopFusion
// YAML: --- !Analysis
// YAML-NEXT: Pass:            driver
// YAML-NEXT: Name:            numLoopsFused
// YAML-NEXT: Function:        '<module>'
// YAML-NEXT: Args:
// YAML-NEXT:   - String:          'numLoopsFused = 1'
// YAML-NEXT: ...
// YAML-EMPTY:
