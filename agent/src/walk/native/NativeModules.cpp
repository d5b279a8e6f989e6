#include "walk/native/NativeModules.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>

#include "walk/native/DwarfCfi.h"
#include "walk/native/ElfImage.h"

namespace candor {

struct NativeModules::Loaded {
  std::string loaderName;  // dlpi_name: "" for the executable
  uintptr_t bias;
  std::vector<Elf64_Phdr> phdrs;
  std::string key;  // name, bias and header address: a module reloaded elsewhere is a new one
};

namespace {
std::string executablePath() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, n) : std::string();
}

std::string basenameOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
}  // namespace

int NativeModules::refresh() {
  std::lock_guard<std::mutex> lock(mutex_);
  struct Ctx {
    unsigned long long lastAdds, lastSubs, adds = 0, subs = 0;
    bool first = true, haveTable;
    std::vector<Loaded> found;
  } ctx{adds_, subs_, 0, 0, true, current_.load(std::memory_order_relaxed) != nullptr, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t size, void* data) -> int {
        auto* c = static_cast<Ctx*>(data);
        if (c->first && size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
          c->first = false;
          c->adds = info->dlpi_adds, c->subs = info->dlpi_subs;
          if (c->haveTable && c->adds == c->lastAdds && c->subs == c->lastSubs) return 1;  // nothing new
        }
        Loaded m{info->dlpi_name != nullptr ? info->dlpi_name : "", info->dlpi_addr,
                 std::vector<Elf64_Phdr>(info->dlpi_phdr, info->dlpi_phdr + info->dlpi_phnum), {}};
        m.key = m.loaderName + "@" + std::to_string(m.bias) + "/" +
                std::to_string(reinterpret_cast<uintptr_t>(info->dlpi_phdr));
        c->found.push_back(std::move(m));
        return 0;
      },
      &ctx);
  if (ctx.found.empty()) return 0;
  adds_ = ctx.adds, subs_ = ctx.subs;

  int added = 0;
  std::unordered_map<std::string, const NativeModule*> live;
  for (const Loaded& m : ctx.found) {
    auto known = live_.find(m.key);
    if (known != live_.end()) {
      live.emplace(m.key, known->second);
      continue;
    }
    std::unique_ptr<NativeModule> module = load(m);
    if (module == nullptr) continue;
    live.emplace(m.key, module.get());
    owned_.push_back(std::move(module));
    added++;
  }
  auto table = std::make_unique<Table>();
  for (const auto& [key, module] : live) {
    for (const auto& [begin, end] : module->text) {
      table->ranges.push_back(Range{begin, end, module, module->rows.data(), uint32_t(module->rows.size())});
    }
  }
  std::sort(table->ranges.begin(), table->ranges.end(),
            [](const Range& a, const Range& b) { return a.begin < b.begin; });
  // Lookups assume disjoint ranges: a range overlapping its predecessor (never seen) is dropped.
  auto overlaps = [last = uintptr_t(0)](const Range& r) mutable {
    bool bad = r.begin < last;
    if (!bad) last = r.end;
    return bad;
  };
  table->ranges.erase(std::remove_if(table->ranges.begin(), table->ranges.end(), overlaps), table->ranges.end());
  current_.store(table.get(), std::memory_order_release);
  tables_.push_back(std::move(table));
  live_ = std::move(live);
  return added;
}

std::unique_ptr<NativeModule> NativeModules::load(const Loaded& m) const {
  auto module = std::make_unique<NativeModule>();
  module->bias = m.bias;
  bool vdso = m.bias != 0 && m.bias == getauxval(AT_SYSINFO_EHDR);
  module->path = vdso ? "" : m.loaderName.empty() ? executablePath() : m.loaderName;
  module->name = vdso ? "[vdso]" : basenameOf(module->path);
  for (const Elf64_Phdr& p : m.phdrs) {
    if (p.p_type == PT_LOAD && (p.p_flags & PF_X) && p.p_memsz > 0) {
      module->text.emplace_back(m.bias + p.p_vaddr, m.bias + p.p_vaddr + p.p_memsz);
    }
  }
  if (module->text.empty()) return nullptr;  // no code: nothing a pc could point into
  // Keep a shared library mapped while its loaded image is read: a dlclose on another thread
  // must not unmap it under the parser. The executable and the vdso never go away.
  void* pin = nullptr;
  if (!vdso && !m.loaderName.empty()) {
    pin = dlopen(m.loaderName.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (pin == nullptr) return nullptr;  // unloaded since dl_iterate_phdr saw it
  }
  auto image = ElfImage::fromLoaded(m.bias, m.phdrs.data(), uint32_t(m.phdrs.size()));
  DwarfCfi cfi = DwarfCfi::parse(*image);
  module->stats = cfi.stats();
  module->rows = cfi.takeRows();
  if (pin != nullptr) dlclose(pin);
  return module;
}

const NativeModules::Range* NativeModules::range_signalSafe(uintptr_t pc) const {
  const Table* t = current_.load(std::memory_order_acquire);
  if (t == nullptr || t->ranges.empty()) return nullptr;
  const Range* r = t->ranges.data();
  size_t lo = 0, hi = t->ranges.size();  // find the last range with begin <= pc
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (r[mid].begin <= pc) lo = mid;
    else hi = mid;
  }
  return pc >= r[lo].begin && pc < r[lo].end ? &r[lo] : nullptr;
}

const NativeModule* NativeModules::module_signalSafe(uintptr_t pc) const {
  const Range* r = range_signalSafe(pc);
  return r != nullptr ? r->module : nullptr;
}

bool NativeModules::find_signalSafe(uintptr_t pc, NativeHit* out) const {
  const Range* r = range_signalSafe(pc);
  if (r == nullptr) return false;
  out->module = r->module;
  out->row = DwarfCfi::find_signalSafe(r->rows, r->count, pc - r->module->bias);
  out->hasCfi = r->count > 0;
  return true;
}

void NativeModules::retireAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  current_.store(nullptr, std::memory_order_release);
  live_.clear();
  tables_.clear();
  owned_.clear();
  adds_ = subs_ = 0;
}

std::vector<const NativeModule*> NativeModules::modules() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<const NativeModule*> out;
  for (const auto& [key, module] : live_) out.push_back(module);
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->text[0].first < b->text[0].first; });
  return out;
}

CfiStats NativeModules::totals() const {
  CfiStats sum;
  for (const NativeModule* m : modules()) sum.add(m->stats);
  return sum;
}

size_t NativeModules::tableBytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t bytes = 0;
  for (const auto& m : owned_) bytes += m->rows.capacity() * sizeof(CfiRow) + sizeof(NativeModule);
  for (const auto& t : tables_) bytes += t->ranges.capacity() * sizeof(Range);
  return bytes;
}

}  // namespace candor
