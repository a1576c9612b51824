//===- AttentionGradMatcher.cpp - the attention backward chain ------------===//
//
// Matches the textbook backward (AttentionGradMatch.h) piece by piece from
// the recomputed probabilities. The forward score chain is matched exactly as
// in the forward (ScoreChain.cpp); the gradient's extra math (e.g. the
// soft-cap derivative 1 - tanh^2) becomes the score_grad region. Every value
// computed inside must stay inside, except the three gradients.
//
//===----------------------------------------------------------------------===//
#include "AttentionGradMatch.h"
#include "ScoreRegion.h"

#include "tg/Dialect/TG/IR/ScoreGradient.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::fusion;

static bool swapsLastTwo(TransposeOp op) {
  ArrayRef<int64_t> perm = op.getPerm();
  return perm.size() == 4 && perm[0] == 0 && perm[1] == 1 && perm[2] == 3 &&
         perm[3] == 2;
}

/// Follows single-use precision casts after `value`.
static Value followCasts(Value value, llvm::SetVector<Operation *> &ops) {
  while (value.hasOneUse() && isPrecisionCast(*value.getUsers().begin())) {
    Operation *cast = *value.getUsers().begin();
    ops.insert(cast);
    value = cast->getResult(0);
  }
  return value;
}

/// tg-decompose-sdpa's GQA head sum after a per-query-head gradient
/// ([B,H,S,D] -> reshape [B,Hkv,G,S,D] -> sum over G), then casts; or just
/// the casts.
static Value followHeadSum(Value perHead, llvm::SetVector<Operation *> &ops) {
  Value value = perHead;
  if (value.hasOneUse())
    if (auto reshape = dyn_cast<ReshapeOp>(*value.getUsers().begin())) {
      ArrayRef<int64_t> in = shapeOf(value);
      ArrayRef<int64_t> split = shapeOf(reshape.getResult());
      if (split.size() == 5 && split[0] == in[0] &&
          split[1] * split[2] == in[1] && split[3] == in[2] &&
          split[4] == in[3] && reshape.getResult().hasOneUse()) {
        auto sum = dyn_cast<ReduceOp>(*reshape.getResult().getUsers().begin());
        if (sum && sum.getKind() == ReduceKind::sum &&
            sum.getDims().size() == 1 && sum.getDims()[0] == 2 &&
            !sum.getKeepdim()) {
          ops.insert(reshape);
          ops.insert(sum);
          value = sum.getResult();
        }
      }
    }
  return followCasts(value, ops);
}

/// Strips `select(stats == -inf, c, stats)` (c finite), the guard that keeps
/// fully masked rows at P = 0.
static Value stripStatsGuard(Value value, llvm::SetVector<Operation *> &ops) {
  auto select = value.getDefiningOp<SelectOp>();
  if (!select)
    return value;
  auto cmp = select.getCond().getDefiningOp<CmpOp>();
  std::optional<double> ninf = cmp ? evalSplatConstant(cmp.getRhs())
                                   : std::nullopt;
  std::optional<double> c = evalSplatConstant(select.getOnTrue());
  if (!cmp || cmp.getPredicate() != CmpPredicate::eq || !ninf ||
      *ninf != -std::numeric_limits<double>::infinity() || !c ||
      !std::isfinite(*c) || cmp.getLhs() != select.getOnFalse())
    return value;
  ops.insert(select);
  ops.insert(cmp);
  return select.getOnFalse();
}

static bool isScoreOp(Operation *op, ArrayRef<int64_t> scoreShape) {
  return op && op->hasTrait<PointwiseTrait>() && !isa<ConstantOp>(op) &&
         op->getNumResults() == 1 && shapeOf(op->getResult(0)) == scoreShape;
}

static bool isDerivedType(Operation *op) {
  Type type = elementTypeOf(op->getResult(0));
  if (!isScoreFloat(type) && !type.isInteger(1))
    return false;
  if (auto cast = dyn_cast<CastOp>(op))
    return !isScoreFloat(elementTypeOf(cast.getInput())) || isScoreFloat(type);
  return true;
}

bool mlir::tg::fusion::looksLikeAttentionGrad(ExpOp exp) {
  auto sub = exp.getInput().getDefiningOp<SubOp>();
  if (!sub || rankOf(sub.getRhs()) != 4 || shapeOf(sub.getRhs())[3] != 1)
    return false;
  Value r = stripPrecisionCasts(sub.getRhs());
  if (auto select = r.getDefiningOp<SelectOp>())
    r = select.getOnFalse();
  if (isa_and_nonnull<ReduceOp>(r.getDefiningOp()))
    return false; // a softmax's max subtraction
  return llvm::any_of(exp->getUsers(), [](Operation *user) {
    return isa<TransposeOp, DropoutOp>(user);
  });
}

FailureOr<AttentionGradMatch>
mlir::tg::fusion::matchAttentionGrad(ExpOp exp, Refusal &refusal) {
  AttentionGradMatch m;
  m.probs = exp;
  llvm::SetVector<Operation *> &ops = m.ops;
  auto notBackward = [&](Operation *at, const Twine &what) {
    return refuse(refusal, at ? at : exp.getOperation(),
                  "not the attention backward: " + what);
  };

  // P = exp(z - R).
  auto sub = exp.getInput().getDefiningOp<SubOp>();
  if (!sub)
    return notBackward(exp, "the probabilities are not exp(scores - stats)");
  m.z = sub.getLhs();
  m.stats = stripStatsGuard(sub.getRhs(), ops);
  ArrayRef<int64_t> scoreShape = shapeOf(m.z);
  if (scoreShape.size() != 4 || shapeOf(exp.getResult()) != scoreShape)
    return notBackward(sub, "the scores are not rank 4");
  SmallVector<int64_t> statsShape{scoreShape[0], scoreShape[1], scoreShape[2],
                                  1};
  if (!elementTypeOf(m.stats).isF32() ||
      shapeOf(m.stats) != ArrayRef<int64_t>(statsShape))
    return notBackward(sub, "the subtracted stats are not f32 [B, H, Sq, 1]");
  ops.insert(sub);
  ops.insert(exp);

  // Users of P: dropout (for dV), the transpose for dV, the dZ product.
  Value p = exp.getResult();
  TransposeOp pT;
  MulOp dzMul;
  for (Operation *user : p.getUsers()) {
    if (auto drop = dyn_cast<DropoutOp>(user); drop && !m.dropout) {
      m.dropout = drop;
    } else if (auto t = dyn_cast<TransposeOp>(user);
               t && swapsLastTwo(t) && !pT) {
      pT = t;
    } else if (auto mul = dyn_cast<MulOp>(user); mul && !dzMul) {
      dzMul = mul;
    } else {
      return notBackward(user, "the probabilities are also used by " +
                                   opName(user));
    }
  }
  if (m.dropout) {
    ops.insert(m.dropout);
    if (pT || !m.dropout.getResult().hasOneUse())
      return notBackward(m.dropout, "the dropped probabilities are not "
                                    "only transposed for dV");
    pT = dyn_cast<TransposeOp>(*m.dropout.getResult().getUsers().begin());
    if (pT && !swapsLastTwo(pT))
      pT = TransposeOp();
  }
  if (!pT || !dzMul)
    return notBackward(exp, "no dV product or no P * (dP - D)");
  ops.insert(pT);

  // dV = Pdᵀ . dO, summed onto the kv heads.
  if (!pT.getResult().hasOneUse())
    return notBackward(pT, "the transposed probabilities have other users");
  auto dvMatmul = dyn_cast<MatmulOp>(*pT.getResult().getUsers().begin());
  if (!dvMatmul || dvMatmul.getA() != pT.getResult())
    return notBackward(pT, "the transposed probabilities do not feed dV");
  ops.insert(dvMatmul);
  m.dO = dvMatmul.getB();
  m.dv = followHeadSum(dvMatmul.getResult(), ops);

  // dZ = P * (dP - D).
  ops.insert(dzMul);
  Value x = dzMul.getLhs() == p ? dzMul.getRhs() : dzMul.getLhs();
  auto diff = x.getDefiningOp<SubOp>();
  if (!diff || x == p)
    return notBackward(dzMul, "the probabilities are not multiplied by "
                              "dP - D");
  ops.insert(diff);
  Value dP = diff.getLhs();
  if (auto drop = dP.getDefiningOp<DropoutOp>()) {
    if (!m.dropout || drop.getSeed() != m.dropout.getSeed() ||
        drop.getOffset() != m.dropout.getOffset() ||
        drop.getProb() != m.dropout.getProb() ||
        drop.getUnscaled() != m.dropout.getUnscaled())
      return notBackward(drop, "dP's dropout is not the probabilities' "
                               "dropout");
    ops.insert(drop);
    dP = drop.getInput();
  } else if (m.dropout) {
    return notBackward(diff, "P is dropped but dP is not");
  }
  if (m.dropout && m.dropout.getUnscaled())
    return notBackward(m.dropout, "unscaled dropout");
  auto dpMatmul = dP.getDefiningOp<MatmulOp>();
  if (!dpMatmul || dpMatmul.getA() != m.dO)
    return notBackward(diff, "dP is not dO . Vᵀ");
  auto vT = dpMatmul.getB().getDefiningOp<TransposeOp>();
  if (!vT || !swapsLastTwo(vT))
    return notBackward(dpMatmul, "dP is not dO . Vᵀ");
  ops.insert(dpMatmul);
  ops.insert(vT);
  Value vHeads = vT.getInput();

  // D = rowsum(dO * O) over the last axis.
  auto rowSum = diff.getRhs().getDefiningOp<ReduceOp>();
  if (!rowSum || rowSum.getKind() != ReduceKind::sum ||
      rowSum.getDims().size() != 1 || rowSum.getDims()[0] != 3 ||
      !rowSum.getKeepdim())
    return notBackward(diff, "D is not rowsum(dO * O)");
  auto outer = rowSum.getInput().getDefiningOp<MulOp>();
  if (!outer)
    return notBackward(rowSum, "D is not rowsum(dO * O)");
  Value a = stripPrecisionCasts(outer.getLhs(), &ops);
  Value b = stripPrecisionCasts(outer.getRhs(), &ops);
  if (a == m.dO)
    m.o = b;
  else if (b == m.dO)
    m.o = a;
  else
    return notBackward(outer, "D is not rowsum(dO * O)");
  ops.insert(rowSum);
  ops.insert(outer);

  // Branches off dZ that may be captured tensors' gradients (checked against
  // the score region below): a sum over some dims with keepdim, then
  // precision casts; precision casts alone; or dZ itself returned.
  m.dz = dzMul.getResult();
  SmallVector<Operation *> dzChainUsers;
  struct Branch {
    Value grad;
    SmallVector<Operation *> ops;
  };
  SmallVector<Branch> branches;
  for (Operation *user : m.dz.getUsers()) {
    Branch branch;
    Value end;
    if (auto sum = dyn_cast<ReduceOp>(user);
        sum && sum.getKind() == ReduceKind::sum && sum.getKeepdim()) {
      branch.ops.push_back(sum);
      llvm::SetVector<Operation *> casts;
      end = followCasts(sum.getResult(), casts);
      branch.ops.append(casts.begin(), casts.end());
    } else if (isPrecisionCast(user)) {
      llvm::SetVector<Operation *> casts;
      casts.insert(user);
      end = followCasts(user->getResult(0), casts);
      bool feedsChain = llvm::any_of(end.getUsers(), [&](Operation *u) {
        return isa<MatmulOp, TransposeOp>(u) || isScoreOp(u, scoreShape);
      });
      if (feedsChain) {
        dzChainUsers.push_back(user);
        continue;
      }
      branch.ops.append(casts.begin(), casts.end());
    } else if (isa<func::ReturnOp>(user)) {
      end = m.dz;
    } else {
      dzChainUsers.push_back(user);
      continue;
    }
    branch.grad = end;
    if (llvm::none_of(branches, [&](const Branch &b) { return b.grad == end; }))
      branches.push_back(std::move(branch));
  }
  // Users of a gradient value along the chain (dZ's without the branches).
  auto chainUsers = [&](Value v) -> SmallVector<Operation *> {
    if (v == m.dz)
      return dzChainUsers;
    return SmallVector<Operation *>(v.getUsers().begin(), v.getUsers().end());
  };

  // The chain rule through the score math, up to the dQ/dK products.
  Value g = m.dz;
  SmallVector<Operation *> gradOps;
  while (chainUsers(g).size() == 1) {
    Operation *user = chainUsers(g).front();
    if (!isScoreOp(user, scoreShape) || !isDerivedType(user))
      break;
    gradOps.push_back(user);
    g = user->getResult(0);
  }
  MatmulOp dqMatmul;
  TransposeOp gT;
  for (Operation *user : chainUsers(g)) {
    if (auto mm = dyn_cast<MatmulOp>(user); mm && mm.getA() == g && !dqMatmul)
      dqMatmul = mm;
    else if (auto t = dyn_cast<TransposeOp>(user);
             t && swapsLastTwo(t) && !gT)
      gT = t;
    else
      return notBackward(user, "the score gradient is also used by " +
                                   opName(user));
  }
  if (!dqMatmul || !gT || !gT.getResult().hasOneUse())
    return notBackward(g.getDefiningOp(), "no dQ and dK products of the "
                                          "score gradient");
  auto dkMatmul = dyn_cast<MatmulOp>(*gT.getResult().getUsers().begin());
  if (!dkMatmul || dkMatmul.getA() != gT.getResult())
    return notBackward(gT, "no dK product of the score gradient");
  ops.insert(dqMatmul);
  ops.insert(gT);
  ops.insert(dkMatmul);
  m.dq = followCasts(dqMatmul.getResult(), ops);
  m.dk = followHeadSum(dkMatmul.getResult(), ops);

  // The forward score chain, with V's values off limits for its leaves.
  SmallVector<Value> vValues{vHeads};
  if (std::optional<OperandPlan> grouped = stripHeadExpansion(vHeads))
    vValues.push_back(grouped->source);
  FailureOr<ScoreChain> chain = matchScoreChain(m.z, vValues, refusal);
  if (failed(chain))
    return failure();
  m.chain = std::move(*chain);
  MatmulOp qk = m.chain.qk;
  auto kT = qk.getB().getDefiningOp<TransposeOp>();
  if (!kT || !swapsLastTwo(kT) || dqMatmul.getB() != kT.getInput() ||
      dkMatmul.getB() != qk.getA())
    return notBackward(qk, "dQ and dK do not use the forward's K and Q");

  // The graph's dQ is G . K' with G the end of the gradient ops; the fused
  // op computes scale * score_grad . K', so score_grad = G / scale. A final
  // `* c` folds into that factor.
  m.gradFactor = 1.0 / m.chain.scale;
  if (!gradOps.empty() && isa<MulOp>(gradOps.back())) {
    Operation *last = gradOps.back();
    Value prev = gradOps.size() > 1 ? gradOps[gradOps.size() - 2]->getResult(0)
                                    : m.dz;
    Value other =
        last->getOperand(0) == prev ? last->getOperand(1) : last->getOperand(0);
    std::optional<double> c = evalSplatConstant(other);
    if (c && other != prev) {
      m.gradFactor = *c / m.chain.scale;
      ops.insert(last);
      gradOps.pop_back();
    }
  }
  if (!std::isfinite(m.gradFactor))
    return notBackward(g.getDefiningOp(), "zero scale");
  m.gradient = gradOps.empty() ? m.dz : gradOps.back()->getResult(0);
  m.hasGradMath = !gradOps.empty() || m.gradFactor != 1.0;

  // Score math only the gradient uses (e.g. tanh² of the soft-cap).
  llvm::DenseSet<Value> gradDerived{m.dz};
  for (Operation *op : gradOps)
    gradDerived.insert(op->getResult(0));
  llvm::DenseSet<Value> scoreTargets{qk.getResult()};
  llvm::DenseMap<Value, bool> memo;
  llvm::SetVector<Operation *> aux;
  SmallVector<Value> worklist;
  for (Operation *op : gradOps)
    for (Value operand : op->getOperands())
      worklist.push_back(operand);
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (gradDerived.contains(v) || m.chain.derived.contains(v) ||
        !dependsOn(v, scoreTargets, memo))
      continue;
    Operation *def = v.getDefiningOp();
    if (!isScoreOp(def, scoreShape) || !isDerivedType(def))
      return notBackward(def, "the score gradient uses " + opName(def) +
                                  " computed from the scores");
    if (aux.insert(def))
      for (Value operand : def->getOperands())
        worklist.push_back(operand);
  }
  for (Operation *op : gradOps)
    if (!isDerivedType(op))
      return notBackward(op, "integer gradient math");

  // q, k, v: the forward's operands, heads expanded or not.
  m.operands.q = OperandPlan{qk.getA(), std::nullopt, {}};
  std::optional<OperandPlan> groupedK = stripHeadExpansion(kT.getInput());
  std::optional<OperandPlan> groupedV = stripHeadExpansion(vHeads);
  bool grouped = groupedK && groupedV &&
                 groupedK->shape()[1] == groupedV->shape()[1];
  m.operands.k = grouped ? *groupedK : OperandPlan{kT.getInput(), {}, {}};
  m.operands.v = grouped ? *groupedV : OperandPlan{vHeads, {}, {}};
  auto typeOf = [](const OperandPlan &plan) {
    return RankedTensorType::get(plan.shape(), elementTypeOf(plan.source));
  };
  Type qType = typeOf(m.operands.q), kType = typeOf(m.operands.k),
       vType = typeOf(m.operands.v);
  Type elem = elementTypeOf(m.operands.q.source);
  if (!isScoreFloat(elem) || elementTypeOf(m.operands.k.source) != elem ||
      elementTypeOf(m.operands.v.source) != elem)
    return notBackward(qk, "q, k and v element types differ");
  if (m.dq.getType() != qType || m.dk.getType() != kType ||
      m.dv.getType() != vType)
    return notBackward(dqMatmul, "the gradients' types do not match q, k "
                                 "and v");
  if (m.o.getType() != m.dO.getType() ||
      !isScoreFloat(elementTypeOf(m.o)) ||
      shapeOf(m.o) != ArrayRef<int64_t>({scoreShape[0], scoreShape[1],
                                         scoreShape[2],
                                         shapeOf(m.operands.v.source)[3]}))
    return notBackward(outer, "o and dO do not line up");

  // The region math: forward chain, gradient-only score math, chain rule.
  m.gradChain.qk = qk;
  m.gradChain.scaledScore = m.chain.scaledScore;
  m.gradChain.scaleOps = m.chain.scaleOps;
  m.gradChain.scale = m.chain.scale;
  m.gradChain.derived = m.chain.derived;
  m.gradChain.derived.insert(gradDerived.begin(), gradDerived.end());
  for (Operation *op : aux)
    m.gradChain.derived.insert(op->getResult(0));
  llvm::SetVector<Operation *> gradChainOps;
  gradChainOps.insert(m.chain.ops.begin(), m.chain.ops.end());
  gradChainOps.insert(aux.begin(), aux.end());
  gradChainOps.insert(gradOps.begin(), gradOps.end());
  m.gradChain.ops.assign(gradChainOps.begin(), gradChainOps.end());

  // A branch off dZ is the gradient of a captured tensor when the score
  // region's derivative with respect to it is dZ itself (an additive bias)
  // and the branch sums exactly its broadcast dimensions.
  if (!branches.empty()) {
    ScoreRegion trial = buildScoreRegion(exp.getContext(), exp.getLoc(),
                                         m.chain, m.z, 1.0);
    for (Branch &branch : branches) {
      auto gradType = cast<RankedTensorType>(branch.grad.getType());
      SmallVector<int64_t> summed;
      if (auto sum = dyn_cast_or_null<ReduceOp>(
              branch.ops.empty() ? nullptr : branch.ops.front()))
        summed.assign(sum.getDims().begin(), sum.getDims().end());
      Value source;
      for (auto [c, capture] : llvm::enumerate(trial.captures)) {
        if (capture.getType() != gradType)
          continue;
        bool dimsMatch = true;
        for (int d = 0; d < 4; ++d) {
          bool broadcast = gradType.getDimSize(d) == 1 && scoreShape[d] != 1;
          if (broadcast != llvm::is_contained(summed, int64_t(d)) &&
              scoreShape[d] != 1)
            dimsMatch = false;
        }
        if (!dimsMatch)
          continue;
        FailureOr<std::unique_ptr<Block>> d =
            deriveScoreGradient(*trial.block, kFirstCaptureArg + c);
        if (succeeded(d) && (*d)->getTerminator()->getOperand(0) ==
                                (*d)->getArguments().back()) {
          source = capture;
          break;
        }
      }
      if (!source)
        return notBackward(branch.ops.empty() ? dzMul.getOperation()
                                              : branch.ops.front(),
                           "dZ is also used by a value that is not the "
                           "gradient of an additive captured tensor");
      m.captureGrads.push_back(branch.grad);
      m.captureGradSources.push_back(source);
      ops.insert(branch.ops.begin(), branch.ops.end());
    }
  }

  // One block, and nothing computed inside used outside (but the grads).
  ops.insert(qk);
  ops.insert(m.chain.ops.begin(), m.chain.ops.end());
  ops.insert(aux.begin(), aux.end());
  ops.insert(gradOps.begin(), gradOps.end());
  Block *block = exp->getBlock();
  for (Operation *op : ops)
    if (op->getBlock() != block)
      return refuse(refusal, op, "the attention chain spans several blocks");
  llvm::sort(m.gradChain.ops, [](Operation *x, Operation *y) {
    return x->isBeforeInBlock(y);
  });
  for (Operation *op : ops)
    for (Value result : op->getResults()) {
      if (result == m.dq || result == m.dk || result == m.dv ||
          llvm::is_contained(m.captureGrads, result))
        continue;
      for (Operation *user : result.getUsers())
        if (!ops.contains(user))
          return refuse(refusal, user,
                        "a value of the attention backward (produced by " +
                            opName(op) + ") is also used by " +
                            opName(user) + " outside the chain");
    }

  // The fused op replaces all gradients at the last one's place.
  SmallVector<Value> allGrads{m.dq, m.dk, m.dv};
  allGrads.append(m.captureGrads.begin(), m.captureGrads.end());
  for (Value grad : allGrads) {
    Operation *def = grad.getDefiningOp();
    if (!m.insertionPoint || m.insertionPoint->isBeforeInBlock(def))
      m.insertionPoint = def;
  }
  for (Value grad : allGrads)
    for (Operation *user : grad.getUsers())
      if (!ops.contains(user) &&
          (user->getBlock() != block || user->isBeforeInBlock(m.insertionPoint)))
        return refuse(refusal, user,
                      "a gradient is used before the last one is computed");
  return m;
}
