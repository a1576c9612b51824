// The cuDNN graph data model: validation and its text form
// (tgc/CudnnGraph.h, docs/cudnn.md).
#include "tgc/CudnnGraph.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

namespace tgc::cudnn {

namespace {
struct KindInfo {
  OpKind kind;
  const char *name;
  bool hasMode;
  std::vector<const char *> required;
  std::vector<const char *> optional;
};

const std::vector<KindInfo> &kindTable() {
  static const std::vector<KindInfo> table = {
      {OpKind::Pointwise, "pointwise", true, {"x", "y"}, {"b", "t"}},
      {OpKind::Matmul,
       "matmul",
       false,
       {"a", "b", "c"},
       {"m_override", "n_override", "k_override"}},
      {OpKind::Reduction, "reduction", true, {"x", "y"}, {}},
      {OpKind::Rng, "rng", true, {"y", "seed", "offset"}, {}},
      {OpKind::SdpaForward,
       "sdpa_fwd",
       false,
       {"q", "k", "v", "o", "scale"},
       {"stats", "seq_len_q", "seq_len_kv"}},
      {OpKind::SdpaBackward,
       "sdpa_bwd",
       false,
       {"q", "k", "v", "o", "do", "stats", "scale", "dq", "dk", "dv"},
       {"seq_len_q", "seq_len_kv"}},
      {OpKind::Reshape, "reshape", false, {"x", "y"}, {}},
  };
  return table;
}

const KindInfo &infoOf(OpKind kind) {
  for (const KindInfo &info : kindTable())
    if (info.kind == kind)
      return info;
  return kindTable().front();
}

bool contains(const std::vector<const char *> &names, std::string_view name) {
  for (const char *n : names)
    if (name == n)
      return true;
  return false;
}

std::string list(const std::vector<int64_t> &values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? "," : "") + std::to_string(values[i]);
  return out + "]";
}

/// Shortest text that reads back as the same double.
std::string number(double value) {
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, result.ptr);
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out + '"';
}

/// Splits a line into words; a quoted word keeps its spaces (the quotes
/// and escapes are removed).
Expected<std::vector<std::string>> words(std::string_view line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ' ') {
      ++i;
      continue;
    }
    std::string word;
    if (line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        char c = line[i++];
        if (c == '\\' && i < line.size()) {
          word += line[i++];
        } else if (c == '"') {
          closed = true;
          break;
        } else {
          word += c;
        }
      }
      if (!closed)
        return makeError(StatusCode::InvalidPlan, "unterminated string");
    } else {
      while (i < line.size() && line[i] != ' ')
        word += line[i++];
    }
    out.push_back(std::move(word));
  }
  return out;
}

bool parseInt(std::string_view s, int64_t &value) {
  auto result = std::from_chars(s.data(), s.data() + s.size(), value);
  return result.ec == std::errc() && result.ptr == s.data() + s.size();
}

bool parseDouble(std::string_view s, double &value) {
  auto result = std::from_chars(s.data(), s.data() + s.size(), value);
  return result.ec == std::errc() && result.ptr == s.data() + s.size();
}

bool parseList(std::string_view s, std::vector<int64_t> &values) {
  if (s.size() < 2 || s.front() != '[' || s.back() != ']')
    return false;
  s = s.substr(1, s.size() - 2);
  values.clear();
  while (!s.empty()) {
    size_t comma = s.find(',');
    int64_t v;
    if (!parseInt(s.substr(0, comma), v))
      return false;
    values.push_back(v);
    if (comma == std::string_view::npos)
      break;
    s = s.substr(comma + 1);
    if (s.empty())
      return false;
  }
  return true;
}
} // namespace

const char *opKindName(OpKind kind) { return infoOf(kind).name; }

std::optional<OpKind> parseOpKind(std::string_view name) {
  for (const KindInfo &info : kindTable())
    if (name == info.name)
      return info.kind;
  return std::nullopt;
}

int64_t Op::port(std::string_view name) const {
  for (const Port &p : ports)
    if (p.name == name)
      return p.uid;
  return 0;
}

const Tensor *Graph::find(int64_t uid) const {
  for (const Tensor &t : tensors)
    if (t.uid == uid)
      return &t;
  return nullptr;
}

Status Graph::validate() const {
  auto fail = [&](const std::string &what) {
    return makeError(StatusCode::InvalidPlan, "cuDNN graph '", name, "': ",
                     what);
  };
  std::set<int64_t> uids;
  for (const Tensor &t : tensors) {
    if (t.uid <= 0)
      return fail(strCat("tensor uid ", t.uid, " is not positive"));
    if (!uids.insert(t.uid).second)
      return fail(strCat("tensor uid ", t.uid, " is used twice"));
    if (t.dims.empty() || t.dims.size() != t.strides.size())
      return fail(strCat("tensor ", t.uid, " has ", t.dims.size(),
                         " dims and ", t.strides.size(), " strides"));
    for (size_t i = 0; i < t.dims.size(); ++i)
      if (t.dims[i] <= 0 || t.strides[i] <= 0)
        return fail(strCat("tensor ", t.uid, " has dims ", list(t.dims),
                           " strides ", list(t.strides),
                           " (both must be positive)"));
    if (t.kind == TensorKind::Bound && t.buffer.empty())
      return fail(strCat("bound tensor ", t.uid, " names no buffer"));
  }
  if (ops.empty())
    return fail("has no operations");
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op &op = ops[i];
    const KindInfo &info = infoOf(op.kind);
    std::string where = strCat("op ", i, " (", info.name, ")");
    if (info.hasMode == op.mode.empty())
      return fail(where + (info.hasMode ? " needs a mode" : " takes no mode"));
    std::set<std::string> seen;
    for (const Port &p : op.ports) {
      if (!contains(info.required, p.name) && !contains(info.optional, p.name))
        return fail(strCat(where, " has no port '", p.name, "'"));
      if (!seen.insert(p.name).second)
        return fail(strCat(where, " binds port '", p.name, "' twice"));
      if (!find(p.uid))
        return fail(strCat(where, " port '", p.name, "' names unknown tensor ",
                           p.uid));
    }
    for (const char *required : info.required)
      if (!seen.count(required))
        return fail(strCat(where, " lacks port '", required, "'"));
    if (op.kind == OpKind::Pointwise && op.mode == "gen_index" && !op.axis)
      return fail(where + " gen_index needs an axis");
    if (op.kind == OpKind::Rng && !op.probability)
      return fail(where + " needs a probability");
  }
  return Status::ok();
}

std::string printGraph(const Graph &graph) {
  std::string out = strCat("graph ", quote(graph.name), " min_version ",
                           graph.minVersion, "\n");
  for (const Tensor &t : graph.tensors) {
    out += strCat("tensor ", t.uid, " ", dtypeName(t.dtype), " ", list(t.dims),
                  " ", list(t.strides));
    switch (t.kind) {
    case TensorKind::Bound:
      out += " buffer " + quote(t.buffer);
      break;
    case TensorKind::Virtual:
      out += " virtual";
      break;
    case TensorKind::ByValue:
      out += " value " + number(t.value);
      break;
    }
    out += "\n";
  }
  for (const Op &op : graph.ops) {
    out += strCat("op ", opKindName(op.kind));
    if (!op.mode.empty())
      out += " " + op.mode;
    if (op.kind == OpKind::Pointwise || op.kind == OpKind::Matmul ||
        op.kind == OpKind::Reduction)
      out += strCat(" compute ", dtypeName(op.compute));
    if (op.axis)
      out += strCat(" axis ", *op.axis);
    if (op.probability)
      out += " probability " + number(*op.probability);
    for (const Port &p : op.ports)
      out += strCat(" ", p.name, " ", p.uid);
    out += "\n";
  }
  return out + "end\n";
}

Expected<std::vector<Graph>> parseGraphs(std::string_view text,
                                        const std::string &sourceName) {
  std::vector<Graph> graphs;
  Graph *current = nullptr;
  size_t lineNo = 0;
  auto fail = [&](const std::string &what) -> Status {
    return makeError(StatusCode::InvalidPlan, sourceName, ":", lineNo, ": ",
                     what);
  };
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++lineNo;
    if (line.empty() || line.front() == '#')
      continue;
    Expected<std::vector<std::string>> parsed = words(line);
    if (!parsed)
      return fail(parsed.status().message());
    const std::vector<std::string> &w = *parsed;
    if (w.empty()) // a line of spaces
      continue;
    const std::string &kw = w[0];
    if (kw == "graph") {
      int64_t version = 0;
      if (current)
        return fail("'graph' before the previous graph's 'end'");
      if (w.size() != 4 || w[2] != "min_version" || !parseInt(w[3], version))
        return fail("expected: graph \"name\" min_version N");
      graphs.emplace_back();
      current = &graphs.back();
      current->name = w[1];
      current->minVersion = int(version);
      continue;
    }
    if (!current)
      return fail(strCat("'", kw, "' outside a graph"));
    if (kw == "end") {
      Status status = current->validate();
      if (!status.isOk())
        return fail(status.message());
      current = nullptr;
    } else if (kw == "tensor") {
      Tensor t;
      std::optional<DType> dtype = w.size() >= 6 ? parseDType(w[2]) : std::nullopt;
      if (!dtype || !parseInt(w[1], t.uid) || !parseList(w[3], t.dims) ||
          !parseList(w[4], t.strides))
        return fail("expected: tensor UID DTYPE [dims] [strides] "
                    "(virtual | buffer \"name\" | value X)");
      t.dtype = *dtype;
      if (w[5] == "virtual" && w.size() == 6) {
        t.kind = TensorKind::Virtual;
      } else if (w[5] == "buffer" && w.size() == 7) {
        t.kind = TensorKind::Bound;
        t.buffer = w[6];
      } else if (w[5] == "value" && w.size() == 7 &&
                 parseDouble(w[6], t.value)) {
        t.kind = TensorKind::ByValue;
      } else {
        return fail("tensor kind must be 'virtual', 'buffer \"name\"' or "
                    "'value X'");
      }
      current->tensors.push_back(std::move(t));
    } else if (kw == "op") {
      std::optional<OpKind> kind =
          w.size() >= 2 ? parseOpKind(w[1]) : std::nullopt;
      if (!kind)
        return fail("expected: op KIND [MODE] (key value)...");
      Op op;
      op.kind = *kind;
      size_t i = 2;
      if (infoOf(*kind).hasMode) {
        if (w.size() < 3)
          return fail(strCat("op ", w[1], " needs a mode"));
        op.mode = w[2];
        i = 3;
      }
      if ((w.size() - i) % 2 != 0)
        return fail("op attributes come in 'key value' pairs");
      for (; i < w.size(); i += 2) {
        const std::string &key = w[i], &value = w[i + 1];
        if (key == "compute") {
          std::optional<DType> dtype = parseDType(value);
          if (!dtype)
            return fail("unknown compute type '" + value + "'");
          op.compute = *dtype;
        } else if (key == "axis") {
          int64_t axis;
          if (!parseInt(value, axis))
            return fail("axis must be an integer");
          op.axis = axis;
        } else if (key == "probability") {
          double p;
          if (!parseDouble(value, p) || !(p >= 0.0 && p <= 1.0))
            return fail("probability must be a number in [0, 1]");
          op.probability = p;
        } else {
          Port port;
          port.name = key;
          if (!parseInt(value, port.uid))
            return fail("port '" + key + "' needs a tensor uid");
          op.ports.push_back(std::move(port));
        }
      }
      current->ops.push_back(std::move(op));
    } else {
      return fail("unknown record '" + kw + "'");
    }
  }
  if (current)
    return fail("graph '" + current->name + "' has no 'end'");
  return graphs;
}

} // namespace tgc::cudnn
