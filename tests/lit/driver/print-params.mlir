// --print-params prints the pass parameters of the chosen target and knobs on stderr.
// RUN: loopopt %s --target trn1 --print-params -o /dev/null 2>&1 | filecheck %s --check-prefix=TRN1
// RUN: loopopt %s --target cpu --vector-bits 256 --loop-opt-distance-threshold 3 --enable-loop-distribution=false --print-params -o /dev/null 2>&1 | filecheck %s --check-prefix=CPU

func.func @empty() {
  return
}

// TRN1: distanceThreshold = 8 SBSize = 196608 PSUMSize = 16384 enableLoopDistribution = 1 enableProfitableLoopFusion = 1
// CPU: distanceThreshold = 3 SBSize = 2097152 PSUMSize = 0 enableLoopDistribution = 0 enableProfitableLoopFusion = 1

// MUTANT-N: skip (independent of the transforms)
