//===- AttentionPatternMatcher.cpp - the whole attention chain ------------===//
//
// Runs the piece matchers from the output matmul backwards and then checks
// what only the whole chain can tell: every value computed inside the chain
// is used only inside it (the log-sum-exp of the training form excepted),
// all of it lives in one block, and the shapes agree.
//
//===----------------------------------------------------------------------===//
#include "AttentionMatch.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::fusion;

/// The values V is read from: the output matmul's operand and whatever
/// layout/head-expansion ops produce it.
static SmallVector<Value> valuesOfV(Value v) {
  SmallVector<Value> values{v};
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<ReshapeOp, BroadcastOp, TransposeOp>(def))
      break;
    v = def->getOperand(0);
    values.push_back(v);
  }
  return values;
}

FailureOr<AttentionMatch> mlir::tg::fusion::matchAttention(MatmulOp pv,
                                                           Refusal &refusal) {
  if (rankOf(pv.getA()) != 4)
    return refuse(refusal, pv,
                  "the output matmul has rank " + Twine(rankOf(pv.getA())) +
                      "; only rank-4 [B, H, S, D] attention is fused");
  AttentionMatch match;
  match.pv = pv;
  FailureOr<ProbabilityMatch> probs = matchProbabilities(pv.getA(), refusal);
  if (failed(probs))
    return failure();
  match.probs = std::move(*probs);

  FailureOr<ScoreChain> chain =
      matchScoreChain(match.probs.input, valuesOfV(pv.getB()), refusal);
  if (failed(chain))
    return failure();
  match.chain = std::move(*chain);

  FailureOr<OperandsMatch> operands =
      matchOperands(match.chain.qk, pv, refusal);
  if (failed(operands))
    return failure();
  match.operands = *operands;

  if (shapeOf(pv.getA()) != shapeOf(match.chain.qk.getResult()))
    return refuse(refusal, pv,
                  "shapes do not line up: the probabilities are " +
                      formatShape(shapeOf(pv.getA())) + " but the scores " +
                      formatShape(shapeOf(match.chain.qk.getResult())));

  // One block, and nothing inside the chain used from outside it.
  llvm::SetVector<Operation *> inside;
  inside.insert(match.chain.qk);
  inside.insert(match.chain.ops.begin(), match.chain.ops.end());
  inside.insert(match.probs.ops.begin(), match.probs.ops.end());
  Block *block = pv->getBlock();
  for (Operation *op : inside)
    if (op->getBlock() != block)
      return refuse(refusal, op, "the attention chain spans several blocks");
  inside.insert(pv);
  for (Operation *op : inside) {
    if (op == pv)
      continue;
    for (Value result : op->getResults()) {
      if (result == match.probs.stats)
        continue;
      for (Operation *user : result.getUsers())
        if (!inside.contains(user))
          return refuse(refusal, user,
                        "a value of the attention chain (produced by " +
                            opName(op) + ") is also used by " +
                            opName(user) + " outside the chain");
    }
  }

  if (Value stats = match.probs.stats) {
    ArrayRef<int64_t> scores = shapeOf(match.chain.qk.getResult());
    SmallVector<int64_t> expected{scores[0], scores[1], scores[2], 1};
    if (!elementTypeOf(stats).isF32() ||
        shapeOf(stats) != ArrayRef<int64_t>(expected))
      return refuse(refusal, stats.getDefiningOp(),
                    "the log-sum-exp must be f32 " + formatShape(expected) +
                        " to become the attention's stats");
    for (Operation *user : stats.getUsers())
      if (user->getBlock() != block || user->isBeforeInBlock(pv))
        return refuse(refusal, user,
                      "the log-sum-exp is used before the output matmul");
  }
  return match;
}

bool mlir::tg::fusion::looksLikeAttention(MatmulOp pv) {
  bool softmaxLike = false, matmul = false;
  llvm::DenseSet<Value> seen;
  SmallVector<Value> worklist{pv.getA()};
  while (!worklist.empty() && seen.size() < 128) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def)
      continue;
    // An exponential counts when it is normalised by a sum (a decomposed
    // softmax), not the recomputed probabilities of a backward graph.
    softmaxLike |= isa<SoftmaxOp>(def) ||
                   (isa<ExpOp, PowOp>(def) &&
                    llvm::any_of(def->getUsers(), [](Operation *user) {
                      auto reduce = dyn_cast<ReduceOp>(user);
                      return reduce && reduce.getKind() == ReduceKind::sum;
                    }));
    matmul |= isa<MatmulOp>(def);
    for (Value operand : def->getOperands())
      worklist.push_back(operand);
  }
  return softmaxLike && matmul;
}
