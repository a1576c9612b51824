#include "tg/Reference/Npy.h"

#include "Elements.h"

#include "tg/Dialect/TG/IR/TGShapes.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::tg::ref;
using llvm::StringRef;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// Header: a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
//===----------------------------------------------------------------------===//

namespace {
class HeaderParser {
public:
  explicit HeaderParser(StringRef text) : text(text) {}

  llvm::Error parse(NpyArray &array, bool &fortranOrder) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    skipSpace();
    if (!consume('{'))
      return fail("header is not a dict");
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key))
        return fail("expected a quoted key in the header");
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after '" + key + "' in the header");
      skipSpace();
      if ((key == "descr" && haveDescr) || (key == "fortran_order" && haveOrder) ||
          (key == "shape" && haveShape))
        return fail("header key '" + key + "' is given twice");
      if (key == "descr") {
        if (!parseString(array.descr))
          return fail("'descr' must be a string (structured dtypes are not "
                      "supported)");
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (text.consume_front("True"))
          fortranOrder = true;
        else if (text.consume_front("False"))
          fortranOrder = false;
        else
          return fail("'fortran_order' must be True or False");
        haveOrder = true;
      } else if (key == "shape") {
        if (llvm::Error error = parseShape(array.shape))
          return error;
        haveShape = true;
      } else {
        return fail("unexpected header key '" + key + "'");
      }
      skipSpace();
      if (!consume(',')) {
        skipSpace();
        if (!consume('}'))
          return fail("expected ',' or '}' in the header");
        break;
      }
    }
    if (!haveDescr || !haveOrder || !haveShape)
      return fail("header lacks 'descr', 'fortran_order' or 'shape'");
    return llvm::Error::success();
  }

private:
  void skipSpace() { text = text.ltrim(" \t\r\n"); }
  bool consume(char c) { return text.consume_front(StringRef(&c, 1)); }
  bool parseString(std::string &out) {
    char quote = text.empty() ? 0 : text.front();
    if (quote != '\'' && quote != '"')
      return false;
    size_t end = text.find(quote, 1);
    if (end == StringRef::npos)
      return false;
    out = text.substr(1, end - 1).str();
    text = text.drop_front(end + 1);
    return true;
  }
  llvm::Error parseShape(std::vector<int64_t> &shape) {
    if (!consume('('))
      return fail("'shape' must be a tuple");
    while (true) {
      skipSpace();
      if (consume(')'))
        return llvm::Error::success();
      size_t digits = 0;
      while (digits < text.size() && llvm::isDigit(text[digits]))
        ++digits;
      uint64_t dim = 0;
      if (digits == 0)
        return fail("'shape' entries must be non-negative integers");
      if (digits > 19 || text.substr(0, digits).getAsInteger(10, dim) ||
          dim > kMaxNpyElements)
        return fail("'shape' entry " + text.substr(0, digits) +
                    " is larger than the " + llvm::Twine(kMaxNpyElements) +
                    " elements a .npy input may have");
      shape.push_back(static_cast<int64_t>(dim));
      text = text.drop_front(digits);
      skipSpace();
      if (!consume(',')) {
        skipSpace();
        if (!consume(')'))
          return fail("expected ',' or ')' in 'shape'");
        return llvm::Error::success();
      }
    }
  }

  StringRef text;
};

uint64_t loadLittleEndian(const unsigned char *p, unsigned size) {
  uint64_t v = 0;
  for (unsigned i = 0; i < size; ++i)
    v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

void storeLittleEndian(std::string &out, uint64_t v, unsigned size) {
  for (unsigned i = 0; i < size; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
} // namespace

llvm::Expected<NpyArray> mlir::tg::ref::parseNpy(StringRef bytes) {
  static const char magic[] = "\x93NUMPY";
  if (bytes.size() < 10 || !bytes.starts_with(StringRef(magic, 6)))
    return fail("not a .npy file (bad magic)");
  auto major = static_cast<unsigned char>(bytes[6]);
  const auto *raw = reinterpret_cast<const unsigned char *>(bytes.data());
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = loadLittleEndian(raw + 8, 2);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail("truncated .npy header");
    headerLen = loadLittleEndian(raw + 8, 4);
    headerStart = 12;
  } else {
    return fail("unsupported .npy format version " + llvm::Twine(major));
  }
  if (bytes.size() < headerStart + headerLen)
    return fail("truncated .npy header");
  NpyArray array;
  bool fortranOrder = false;
  if (llvm::Error error =
          HeaderParser(bytes.substr(headerStart, headerLen))
              .parse(array, fortranOrder))
    return std::move(error);
  if (fortranOrder)
    return fail("Fortran-order arrays are not supported (save a C-order "
                "array, e.g. np.ascontiguousarray)");

  StringRef descr = array.descr;
  if (descr.size() < 3)
    return fail("unsupported dtype '" + descr + "'");
  char order = descr[0], kind = descr[1];
  unsigned size = 0;
  if (descr.drop_front(2).getAsInteger(10, size))
    return fail("unsupported dtype '" + descr + "'");
  if (order == '>' && size > 1)
    return fail("big-endian dtype '" + descr + "' is not supported");
  bool known = (kind == 'f' && (size == 2 || size == 4 || size == 8)) ||
               ((kind == 'i' || kind == 'u') &&
                (size == 1 || size == 2 || size == 4 || size == 8)) ||
               (kind == 'b' && size == 1);
  if (!known || (order != '<' && order != '|' && order != '=' && order != '>'))
    return fail("unsupported dtype '" + descr +
                "' (expected float16/32/64, int8-64, uint8-64 or bool)");

  // Dims are at most kMaxNpyElements, so the product of two never overflows.
  uint64_t count = 1;
  bool empty = llvm::is_contained(array.shape, 0);
  for (int64_t dim : array.shape) {
    count *= static_cast<uint64_t>(dim);
    if (!empty && count > kMaxNpyElements)
      return fail("shape " + tg::formatShape(array.shape) + " has more than the " +
                  llvm::Twine(kMaxNpyElements) +
                  " elements a .npy input may have");
  }
  if (empty)
    count = 0;
  StringRef data = bytes.drop_front(headerStart + headerLen);
  if (data.size() < count * size)
    return fail("truncated data: expected " + llvm::Twine(count * size) +
                " bytes for shape " +
                tg::formatShape(array.shape) + ", found " +
                llvm::Twine(data.size()));
  if (data.size() > count * size)
    return fail(llvm::Twine(data.size() - count * size) +
                " bytes after the data (expected exactly " +
                llvm::Twine(count * size) + " bytes for shape " +
                tg::formatShape(array.shape) + " of '" + descr + "')");
  array.values.resize(count);
  const auto *p = reinterpret_cast<const unsigned char *>(data.data());
  for (uint64_t i = 0; i < count; ++i, p += size) {
    uint64_t bits = loadLittleEndian(p, size);
    double value = 0.0;
    if (kind == 'f') {
      if (size == 2) {
        value = tgc::fromBits(tgc::Format::F16, static_cast<uint32_t>(bits));
      } else if (size == 4) {
        float f;
        auto word = static_cast<uint32_t>(bits);
        std::memcpy(&f, &word, 4);
        value = f;
      } else {
        std::memcpy(&value, &bits, 8);
      }
    } else if (kind == 'b') {
      value = bits != 0 ? 1.0 : 0.0;
    } else if (kind == 'u') {
      if (bits > (uint64_t{1} << 53))
        return fail("value " + llvm::Twine(bits) +
                    " is too large to hold exactly (limit 2^53)");
      value = static_cast<double>(bits);
    } else {
      // Sign-extend from `size` bytes.
      int64_t v = static_cast<int64_t>(bits << (64 - 8 * size)) >>
                  (64 - 8 * size);
      if (v > (int64_t{1} << 53) || v < -(int64_t{1} << 53))
        return fail("value " + llvm::Twine(v) +
                    " is too large to hold exactly (limit 2^53)");
      value = static_cast<double>(v);
    }
    array.values[i] = value;
  }
  return array;
}

llvm::Expected<NpyArray> mlir::tg::ref::readNpy(StringRef path) {
  // Only a regular file of bounded size is read: /dev/zero would be read
  // forever and a FIFO waited on (so it is not opened at all).
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return fail("cannot read '" + path + "': " + ec.message());
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return fail("cannot read '" + path + "': it is not a regular file");
  if (status.getSize() > kMaxNpyBytes)
    return fail("cannot read '" + path + "': it has " +
                llvm::Twine(status.getSize()) + " bytes, more than the " +
                llvm::Twine(kMaxNpyBytes) + " a .npy input may have");
  llvm::Expected<llvm::sys::fs::file_t> file =
      llvm::sys::fs::openNativeFileForRead(path);
  if (!file)
    return fail("cannot read '" + path +
                "': " + llvm::toString(file.takeError()));
  llvm::scope_exit close([&] { llvm::sys::fs::closeFile(*file); });
  auto buffer = llvm::MemoryBuffer::getOpenFile(
      *file, path, status.getSize(), /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail("cannot read '" + path + "': " + buffer.getError().message());
  llvm::Expected<NpyArray> array = parseNpy((*buffer)->getBuffer());
  if (!array)
    return fail("'" + path + "': " + llvm::toString(array.takeError()));
  return array;
}

llvm::Expected<HostTensor> mlir::tg::ref::npyToTensor(const NpyArray &array,
                                                      RankedTensorType type) {
  if (ArrayRef<int64_t>(array.shape) != type.getShape())
    return fail("shape " + tg::formatShape(array.shape) +
                " does not match the argument's " +
                tg::formatShape(type.getShape()));
  ElementInfo info = classifyElement(type.getElementType());
  char kind = array.descr.size() > 1 ? array.descr[1] : '?';
  std::string typeName = elementTypeName(type.getElementType());
  if (info.isFloat() && kind != 'f')
    return fail("dtype '" + array.descr + "' cannot feed a " + typeName +
                " argument (expected a float array)");
  if (!info.isFloat() && kind == 'f')
    return fail("dtype '" + array.descr + "' cannot feed an " + typeName +
                " argument (expected an integer or bool array)");
  HostTensor tensor = HostTensor::zeros(type);
  for (size_t i = 0; i < array.values.size(); ++i) {
    double value = array.values[i];
    if (!info.isFloat() && roundValue(info, value) != value)
      return fail("value " + llvm::Twine(static_cast<int64_t>(value)) +
                  " at index " + llvm::Twine(i) + " does not fit " + typeName);
    tensor.values[i] = roundValue(info, value);
  }
  return tensor;
}

std::string mlir::tg::ref::npyDescr(Type elementType) {
  ElementInfo info = classifyElement(elementType);
  if (info.isFloat())
    return info.format == tgc::Format::F16 ? "<f2" : "<f4";
  if (info.isBool())
    return "|b1";
  if (info.bits == 8 || info.bits == 4) // i4: one value per byte
    return "|i1";
  return info.bits == 32 ? "<i4" : "<i8";
}

std::string mlir::tg::ref::serializeNpy(const HostTensor &tensor) {
  std::string descr = npyDescr(tensor.elementType);
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': (";
  for (int64_t dim : tensor.shape)
    header += std::to_string(dim) + (tensor.shape.size() == 1 ? "," : ", ");
  if (tensor.shape.size() > 1)
    header.resize(header.size() - 2);
  header += "), }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  storeLittleEndian(out, header.size(), 2);
  out += header;
  unsigned size = descr.back() - '0';
  for (double value : tensor.values) {
    uint64_t bits;
    if (descr == "<f4") {
      auto f = static_cast<float>(value);
      uint32_t word;
      std::memcpy(&word, &f, 4);
      bits = word;
    } else if (descr == "<f2") {
      bits = tgc::toBits(tgc::Format::F16, value);
    } else {
      bits = static_cast<uint64_t>(tgc::doubleToInt64Wrapping(value));
    }
    storeLittleEndian(out, bits, size);
  }
  return out;
}

llvm::Error mlir::tg::ref::writeNpy(StringRef path, const HostTensor &tensor) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return fail("cannot write '" + path + "': " + ec.message());
  os << serializeNpy(tensor);
  os.close();
  if (os.has_error())
    return fail("cannot write '" + path + "': " + os.error().message());
  return llvm::Error::success();
}
