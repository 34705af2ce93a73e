// Loading a shared object from memory (see SharedObject.h).
#include "runtime/artifact/SharedObject.h"

#include "runtime/support/WriteAll.h"

#include <fmt/format.h>

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

namespace linnet::rt {

namespace {

#if defined(__x86_64__)
constexpr std::uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr std::uint16_t kHostMachine = EM_AARCH64;
#else
#error "unsupported host architecture"
#endif

// The program headers the dynamic loader maps: each loadable segment's
// bytes must lie inside the object, and its addresses must be mappable. The
// loader trusts them, so a cut or altered object (inside a container whose
// checksum was made to match) faulted in it with SIGBUS or SIGSEGV instead of
// being refused.
Status checkSegments(std::span<const std::byte> bytes, const Elf64_Ehdr &header, std::string_view source) {
  auto damaged = [&](std::string_view why) {
    return makeError("{}: the native code is damaged: {}", source, why);
  };
  constexpr std::uint64_t kMaxSpan = std::uint64_t{1} << 40; // far beyond any object we write
  std::uint64_t size = bytes.size();
  if (header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum == 0 || header.e_phnum > 256)
    return damaged("malformed program header table");
  std::uint64_t tableEnd = header.e_phoff + std::uint64_t{header.e_phnum} * sizeof(Elf64_Phdr);
  if (header.e_phoff > size || tableEnd > size || tableEnd < header.e_phoff)
    return damaged("the program header table lies outside the object");
  std::vector<Elf64_Phdr> segments(header.e_phnum);
  std::memcpy(segments.data(), bytes.data() + header.e_phoff, header.e_phnum * sizeof(Elf64_Phdr));
  bool anyLoad = false;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const Elf64_Phdr &segment = segments[i];
    if (segment.p_type == PT_NULL)
      continue;
    anyLoad = anyLoad || segment.p_type == PT_LOAD;
    if (segment.p_offset > size || segment.p_filesz > size - segment.p_offset)
      return damaged(fmt::format("segment {} reaches past the object's {} bytes", i, size));
    if (segment.p_filesz > segment.p_memsz || segment.p_memsz > kMaxSpan || segment.p_vaddr > kMaxSpan)
      return damaged(fmt::format("segment {} has impossible sizes or addresses", i));
    if (segment.p_type == PT_LOAD && segment.p_align > 1 &&
        ((segment.p_align & (segment.p_align - 1)) != 0 ||
         segment.p_vaddr % segment.p_align != segment.p_offset % segment.p_align))
      return damaged(fmt::format("segment {} is misaligned", i));
  }
  // Every other segment the loader reads or protects (the program headers,
  // the dynamic table, RELRO) lies inside a loaded one.
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const Elf64_Phdr &inner = segments[i];
    if (inner.p_type == PT_NULL || inner.p_type == PT_LOAD || inner.p_memsz == 0 || inner.p_type == PT_GNU_STACK)
      continue;
    bool inside = std::any_of(segments.begin(), segments.end(), [&](const Elf64_Phdr &load) {
      return load.p_type == PT_LOAD && inner.p_vaddr >= load.p_vaddr &&
             inner.p_vaddr + inner.p_memsz <= load.p_vaddr + load.p_memsz;
    });
    if (!inside)
      return damaged(fmt::format("segment {} lies outside the loaded ones", i));
  }
  if (!anyLoad)
    return damaged("no loadable segment");
  return Status::success();
}

Status checkElf(std::span<const std::byte> bytes, std::string_view source) {
  if (bytes.size() < sizeof(Elf64_Ehdr) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0)
    return makeError("{}: the native code is not an ELF file", source);
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB)
    return makeError("{}: the native code is not a 64-bit little-endian ELF file", source);
  if (header.e_type != ET_DYN)
    return makeError("{}: the native code is not a shared object (ELF type {})", source, header.e_type);
  if (header.e_machine != kHostMachine)
    return makeError("{}: the native code is for another machine (ELF machine {}, this host is {})", source,
                     header.e_machine, kHostMachine);
  return checkSegments(bytes, header, source);
}

} // namespace

Status SharedObject::check(std::span<const std::byte> bytes, std::string_view sourceName) {
  return checkElf(bytes, sourceName);
}

Expected<SharedObject> SharedObject::load(std::span<const std::byte> bytes, std::string_view sourceName) {
  if (Status s = checkElf(bytes, sourceName); !s)
    return s.error();
  SharedObject out;
  out.sourceName_ = std::string(sourceName);
  std::string path;
  int fd = memfd_create("linnet-artifact", MFD_CLOEXEC);
  bool temporary = false;
  if (fd < 0) {
    // No memfd (old kernel, seccomp): a private temporary file instead.
    std::string tmpl = (std::filesystem::temp_directory_path() / "linnet-artifact-XXXXXX").string();
    fd = mkostemp(tmpl.data(), O_CLOEXEC);
    if (fd < 0)
      return makeError("{}: cannot create a file for the native code: {}", sourceName, std::strerror(errno));
    path = tmpl;
    temporary = true;
  } else {
    path = "/proc/self/fd/" + std::to_string(fd);
  }
  out.fd_ = fd;
  if (!temporary)
    out.path_ = path;
  if (Status s = writeAll(fd, bytes); !s) {
    if (temporary)
      unlink(path.c_str());
    return makeError("{}: cannot write the native code: {}", sourceName, s.message());
  }
  dlerror();
  out.handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (temporary)
    unlink(path.c_str());
  if (!out.handle_) {
    const char *reason = dlerror();
    return makeError("{}: cannot load the native code: {}", sourceName, reason ? reason : "unknown error");
  }
  return out;
}

SharedObject::SharedObject(SharedObject &&other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)), sourceName_(std::move(other.sourceName_)) {
  other.path_.clear();
}

SharedObject &SharedObject::operator=(SharedObject &&other) noexcept {
  if (this != &other) {
    release();
    handle_ = std::exchange(other.handle_, nullptr);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::exchange(other.path_, std::string());
    sourceName_ = std::move(other.sourceName_);
  }
  return *this;
}

SharedObject::~SharedObject() { release(); }

void SharedObject::release() noexcept {
  bool stillLoaded = false;
  if (handle_) {
    dlclose(handle_);
    // A library marked NODELETE (e.g. one with STB_GNU_UNIQUE symbols) stays
    // loaded under its name "/proc/self/fd/N". Closing N would let a later
    // memfd reuse the number, and dlopen would then hand back this old
    // library; so its descriptor is kept open for the life of the process.
    if (!path_.empty()) {
      if (void *again = dlopen(path_.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
        stillLoaded = true;
        dlclose(again);
      }
    }
  }
  if (fd_ >= 0 && !stillLoaded)
    close(fd_);
  handle_ = nullptr;
  fd_ = -1;
  path_.clear();
}

Expected<void *> SharedObject::symbol(const std::string &name) const {
  if (!handle_)
    return makeError("{}: no native code is loaded", sourceName_);
  dlerror();
  void *address = dlsym(handle_, name.c_str());
  if (!address)
    return makeError("{}: the native code has no symbol `{}`", sourceName_, name);
  // dlsym also searches the object's dependencies: a manifest naming
  // `abort` would get libc's. Only the artifact's own definitions count.
  link_map *own = nullptr, *owner = nullptr;
  Dl_info info{};
  if (dlinfo(handle_, RTLD_DI_LINKMAP, &own) != 0 ||
      dladdr1(address, &info, reinterpret_cast<void **>(&owner), RTLD_DL_LINKMAP) == 0 || owner != own)
    return makeError("{}: the native code does not define `{}` (it names another library's symbol)", sourceName_,
                     name);
  return address;
}

} // namespace linnet::rt
