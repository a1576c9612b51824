//===- ScoreChain.cpp - pointwise ops between the QK matmul and softmax ---===//
//
// Walks back from the softmax input through pointwise ops of the score shape
// to the one matmul that produces the scores. Ops that depend on the scores
// form the chain (they become region math); their other operands are leaves
// (constants, index expressions and captured tensors). A leaf that depends on
// the scores through a non-pointwise op (a reduction, a transpose, another
// matmul) or on the values of V makes the chain unfusable.
//
//===----------------------------------------------------------------------===//
#include "AttentionMatch.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::fusion;

/// True when an op may be part of the score chain: pointwise, not a
/// constant, producing the full score shape.
static bool isChainCandidate(Operation *op, ArrayRef<int64_t> scoreShape) {
  return op && op->hasTrait<PointwiseTrait>() && !isa<ConstantOp>(op) &&
         op->getNumResults() == 1 && shapeOf(op->getResult(0)) == scoreShape;
}

/// True when `value` is computed from one of `targets`; `memo` caches
/// answers (the graph is acyclic).
bool mlir::tg::fusion::dependsOn(Value value,
                                 const llvm::DenseSet<Value> &targets,
                                 llvm::DenseMap<Value, bool> &memo) {
  if (targets.contains(value))
    return true;
  auto it = memo.find(value);
  if (it != memo.end())
    return it->second;
  bool found = false;
  if (Operation *def = value.getDefiningOp())
    found = llvm::any_of(def->getOperands(), [&](Value operand) {
      return dependsOn(operand, targets, memo);
    });
  memo[value] = found;
  return found;
}

static bool isDerivedType(Type type) {
  return isScoreFloat(type) || type.isInteger(1);
}

FailureOr<ScoreChain> mlir::tg::fusion::matchScoreChain(Value z,
                                                        ArrayRef<Value> vValues,
                                                        Refusal &refusal) {
  ArrayRef<int64_t> scoreShape = shapeOf(z);
  Operation *zDef = z.getDefiningOp();
  if (scoreShape.size() != 4)
    return refuse(refusal, zDef,
                  "the scores have rank " + Twine(scoreShape.size()) +
                      "; only rank-4 [B, H, Sq, Skv] attention is fused");

  // Walk back through chain candidates; collect the matmuls at the frontier.
  SmallVector<MatmulOp> matmuls;
  llvm::DenseSet<Value> seen;
  SmallVector<Value> worklist{z};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (auto mm = dyn_cast_or_null<MatmulOp>(def)) {
      if (shapeOf(v) == scoreShape && !llvm::is_contained(matmuls, mm))
        matmuls.push_back(mm);
      continue;
    }
    if (isChainCandidate(def, scoreShape))
      for (Value operand : def->getOperands())
        worklist.push_back(operand);
  }
  if (matmuls.empty())
    return refuse(refusal, zDef,
                  "no matmul produces the scores that reach the softmax");
  llvm::sort(matmuls, [](MatmulOp a, MatmulOp b) {
    return a->getBlock() == b->getBlock() && a->isBeforeInBlock(b);
  });
  if (matmuls.size() > 1)
    return refuse(refusal, matmuls.back(),
                  "the scores combine " + Twine(matmuls.size()) +
                      " matmul results; a matmul between the two matmuls "
                      "other than Q.K^T cannot be fused");

  ScoreChain chain;
  chain.qk = matmuls.front();
  Value s = chain.qk.getResult();
  if (!isScoreFloat(elementTypeOf(s)))
    return refuse(refusal, chain.qk,
                  "the scores are " + typeName(elementTypeOf(s)) +
                      "; expected bf16, f16 or f32");

  // derived(v): v is S or computed from S by chain candidates. Visit in
  // block order so operands are classified before their users.
  Block *block = chain.qk->getBlock();
  chain.derived.insert(s);
  SmallVector<Operation *> candidates;
  for (Value v : seen)
    if (Operation *def = v.getDefiningOp(); isChainCandidate(def, scoreShape))
      candidates.push_back(def);
  for (Operation *op : candidates)
    if (op->getBlock() != block)
      return refuse(refusal, op,
                    "the attention chain spans several blocks");
  llvm::sort(candidates,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  candidates.erase(llvm::unique(candidates), candidates.end());
  for (Operation *op : candidates) {
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return chain.derived.contains(v); })) {
      chain.derived.insert(op->getResult(0));
      chain.ops.push_back(op);
    }
  }
  if (!chain.derived.contains(z))
    return refuse(refusal, zDef, "the softmax input does not depend on the "
                                 "QK matmul through pointwise ops");

  // Types on the chain: scores stay floats (computed in f32 in the region)
  // or booleans from comparisons.
  for (Operation *op : chain.ops) {
    Type resultType = elementTypeOf(op->getResult(0));
    if (!isDerivedType(resultType))
      return refuse(refusal, op,
                    opName(op) + " turns the scores into " +
                        typeName(resultType) +
                        "; only float and boolean score values are fused");
    if (auto cast = dyn_cast<CastOp>(op)) {
      Type from = elementTypeOf(cast.getInput());
      if (isScoreFloat(from) && !isScoreFloat(resultType))
        return refuse(refusal, op,
                      "a cast of the scores to " +
                          typeName(resultType) + " is not fused");
    }
  }

  // Leaves must not depend on the scores (except through the chain) nor on
  // the values of V.
  llvm::DenseSet<Value> scoreTargets{s};
  llvm::DenseSet<Value> vTargets(vValues.begin(), vValues.end());
  llvm::DenseMap<Value, bool> scoreMemo, vMemo;
  for (Operation *op : chain.ops) {
    for (Value operand : op->getOperands()) {
      if (chain.derived.contains(operand))
        continue;
      if (dependsOn(operand, scoreTargets, scoreMemo)) {
        // Blame the first non-pointwise op on the way back to S.
        Operation *culprit = operand.getDefiningOp();
        while (culprit && culprit->hasTrait<PointwiseTrait>()) {
          Operation *next = nullptr;
          for (Value v : culprit->getOperands())
            if (dependsOn(v, scoreTargets, scoreMemo)) {
              next = v.getDefiningOp();
              break;
            }
          if (!next)
            break;
          culprit = next;
        }
        return refuse(refusal, culprit,
                      "a " + opName(culprit) +
                          " between the two matmuls is not part of the "
                          "softmax");
      }
      if (dependsOn(operand, vTargets, vMemo))
        return refuse(refusal, op,
                      "a score modifier depends on the values of V");
    }
  }

  // Leading `S * c` / `S / c` (through precision casts) become the scale.
  Value cur = s;
  while (cur.hasOneUse()) {
    Operation *user = *cur.getUsers().begin();
    if (!llvm::is_contained(chain.ops, user))
      break;
    if (isPrecisionCast(user)) {
      chain.scaleOps.push_back(user);
      cur = user->getResult(0);
      continue;
    }
    std::optional<double> c;
    if (isa<MulOp>(user))
      c = evalSplatConstant(user->getOperand(user->getOperand(0) == cur ? 1 : 0));
    else if (isa<DivOp>(user) && user->getOperand(0) == cur &&
             user->getOperand(1) != cur)
      c = evalSplatConstant(user->getOperand(1));
    if (!c || !std::isfinite(*c) || *c == 0.0 ||
        user->getOperand(0) == user->getOperand(1))
      break;
    chain.scale *= isa<DivOp>(user) ? 1.0 / *c : *c;
    chain.scaleOps.push_back(user);
    cur = user->getResult(0);
  }
  chain.scaledScore = cur;
  return chain;
}
