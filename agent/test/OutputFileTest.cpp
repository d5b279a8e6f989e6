#include "output/OutputFile.h"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace candor;

namespace {
// A fresh directory, removed when the test ends.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/candor-outputfile-XXXXXX";
    const char* d = mkdtemp(tmpl);
    path = d != nullptr ? d : "/tmp/candor-outputfile-failed";
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  operator std::string() const { return path; }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

mode_t modeOf(const std::string& path) {
  struct stat st = {};
  lstat(path.c_str(), &st);
  return st.st_mode & 0777;
}
}  // namespace

TEST(OutputFile, WritesAndTruncatesARegularFile) {
  TempDir tmp;
  std::string dir = tmp, path = dir + "/a.collapsed";
  std::string why;
  ASSERT_TRUE(writeOutputFile(path, "a long first content\n", &why)) << why;
  ASSERT_TRUE(writeOutputFile(path, "short\n", &why)) << why;
  EXPECT_EQ(slurp(path), "short\n");
  EXPECT_TRUE(checkOutputWritable(path, &why)) << why;
}

TEST(OutputFile, StreamsLargeContentThroughItsBufferAndReportsFailures) {
  TempDir tmp;
  std::string dir = tmp, path = dir + "/big.collapsed";
  std::string expected;
  for (int i = 0; i < 50'000; i++) expected += "a.B.c;d.E.f " + std::to_string(i) + "\n";  // ~1 MB, 16 buffers
  std::string why;
  ASSERT_TRUE(writeOutputFileStreamed(path, [&](std::ostream& out) {
    for (int i = 0; i < 50'000; i++) out << "a.B.c;d.E.f " << i << '\n';
  }, &why)) << why;
  EXPECT_EQ(slurp(path), expected);
  EXPECT_FALSE(writeOutputFileStreamed(dir + "/missing/x.html", [](std::ostream& out) { out << "x"; }, &why));
  EXPECT_FALSE(why.empty());
}

TEST(OutputFile, CreatesWithTheUmask) {
  TempDir tmp;
  std::string dir = tmp;
  std::string why;
  mode_t old = umask(077);
  ASSERT_TRUE(writeOutputFile(dir + "/p077.html", "x", &why)) << why;
  umask(027);
  ASSERT_TRUE(writeOutputFile(dir + "/p027.html", "x", &why)) << why;
  umask(old);
  EXPECT_EQ(modeOf(dir + "/p077.html"), 0600u);
  EXPECT_EQ(modeOf(dir + "/p027.html"), 0640u);
}

TEST(OutputFile, RefusesASymlinkAndLeavesItsTargetAlone) {
  TempDir tmp;
  std::string dir = tmp, target = dir + "/precious", link = dir + "/out.html";
  std::string why;
  ASSERT_TRUE(writeOutputFile(target, "precious\n", &why)) << why;
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  EXPECT_FALSE(checkOutputWritable(link, &why));
  EXPECT_NE(why.find("symbolic link"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(writeOutputFile(link, "evil\n", &why));
  EXPECT_NE(why.find("symbolic link"), std::string::npos) << why;
  EXPECT_EQ(slurp(target), "precious\n");
  // A dangling link is refused too (O_CREAT would otherwise create its target).
  std::string dangling = dir + "/dangling.html";
  ASSERT_EQ(symlink((dir + "/nowhere").c_str(), dangling.c_str()), 0);
  EXPECT_FALSE(writeOutputFile(dangling, "x", &why));
  EXPECT_NE(access((dir + "/nowhere").c_str(), F_OK), 0);
}

TEST(OutputFile, RefusesAFifoWithoutBlocking) {
  TempDir tmp;
  std::string dir = tmp, fifo = dir + "/p.collapsed";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string why;
  EXPECT_FALSE(checkOutputWritable(fifo, &why));
  EXPECT_NE(why.find("not a regular file"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(writeOutputFile(fifo, "x", &why));  // would block forever with a plain open()
  EXPECT_NE(why.find("not a regular file"), std::string::npos) << why;
  // Also with a reader present, when a nonblocking open succeeds.
  int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  EXPECT_FALSE(writeOutputFile(fifo, "x", &why));
  close(reader);
}

TEST(OutputFile, RefusesDirectoriesAndMissingParents) {
  TempDir tmp;
  std::string dir = tmp;
  std::string why;
  EXPECT_FALSE(checkOutputWritable(dir, &why));
  EXPECT_NE(why.find("directory"), std::string::npos) << why;
  EXPECT_FALSE(checkOutputWritable(dir + "/no/such/p.html", &why));
  EXPECT_NE(why.find("cannot create it in"), std::string::npos) << why;
  EXPECT_TRUE(checkOutputWritable(dir + "/new.html", &why)) << why;
  EXPECT_NE(access((dir + "/new.html").c_str(), F_OK), 0) << "the check must not create the file";
}
