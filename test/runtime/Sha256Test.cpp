#include "tgc/Sha256.h"

#include <gtest/gtest.h>

using namespace tgc;

// Known answers from FIPS 180-4 / NIST's examples.
TEST(Sha256, KnownAnswers) {
  EXPECT_EQ(toHex(Sha256::hash("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(toHex(Sha256::hash("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(toHex(Sha256::hash(
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(toHex(Sha256::hash(std::string(1000000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Padding edge cases: lengths around the 56-byte boundary.
TEST(Sha256, IncrementalEqualsOneShot) {
  std::string data;
  for (int i = 0; i < 300; ++i)
    data.push_back(char(i * 7 + 3));
  for (size_t length : {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 300}) {
    std::string_view prefix(data.data(), length);
    for (size_t chunk : {1, 3, 64, 100}) {
      Sha256 sha;
      for (size_t at = 0; at < length; at += chunk)
        sha.update(prefix.substr(at, chunk));
      EXPECT_EQ(sha.finish(), Sha256::hash(prefix))
          << "length " << length << " chunk " << chunk;
    }
  }
}

TEST(Sha256, FieldsAreUnambiguous) {
  Sha256 a, b;
  a.updateField("ab");
  a.updateField("c");
  b.updateField("a");
  b.updateField("bc");
  EXPECT_NE(a.finish(), b.finish());
}
