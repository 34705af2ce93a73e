// Reading and writing the `.lnpkg` container (see ArtifactFile.h).
#include "runtime/artifact/ArtifactFile.h"

#include "runtime/io/AtomicFile.h"

#include <cstring>

namespace linnet::rt {

namespace {

std::uint64_t readU64(const std::byte *p) {
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = (value << 8) | static_cast<std::uint8_t>(p[i]);
  return value;
}

void appendU64(std::string &out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

} // namespace

std::uint64_t artifactChecksum(std::span<const std::byte> bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (std::byte b : bytes)
    hash = (hash ^ static_cast<std::uint8_t>(b)) * 0x100000001b3ull;
  return hash;
}

Expected<ArtifactContents> splitArtifact(std::span<const std::byte> file, std::string_view sourceName) {
  const std::size_t size = file.size();
  if (size < 8 || std::memcmp(file.data(), kArtifactMagic, sizeof kArtifactMagic) != 0)
    return makeError("{}: not a linnet artifact (bad magic)", sourceName);
  auto version = static_cast<std::uint8_t>(file[7]);
  if (version != kArtifactFormatVersion)
    return makeError("{}: artifact format version {} is not supported (this runtime reads version {}; build it "
                     "again with this linnet)",
                     sourceName, version, kArtifactFormatVersion);
  if (size < 16)
    return makeError("{}: truncated: the manifest length is missing", sourceName);
  std::uint64_t manifestBytes = readU64(file.data() + 8);
  if (manifestBytes > kMaxManifestBytes)
    return makeError("{}: manifest length {} exceeds the limit of {} bytes", sourceName, manifestBytes,
                     kMaxManifestBytes);
  std::size_t pos = 16;
  if (manifestBytes > size - pos)
    return makeError("{}: truncated: the manifest is {} bytes but only {} follow", sourceName, manifestBytes,
                     size - pos);
  std::string_view manifest(reinterpret_cast<const char *>(file.data() + pos), manifestBytes);
  pos += manifestBytes;
  if (size - pos < 8)
    return makeError("{}: truncated: the shared object length is missing", sourceName);
  std::uint64_t soBytes = readU64(file.data() + pos);
  pos += 8;
  if (soBytes > kMaxSharedObjectBytes)
    return makeError("{}: shared object length {} exceeds the limit of {} bytes", sourceName, soBytes,
                     kMaxSharedObjectBytes);
  if (soBytes > size - pos)
    return makeError("{}: truncated: the shared object is {} bytes but only {} follow", sourceName, soBytes,
                     size - pos);
  std::size_t soAt = pos;
  pos += soBytes;
  if (size - pos < 8)
    return makeError("{}: truncated: the checksum is missing", sourceName);
  if (size - pos > 8)
    return makeError("{}: {} unexpected bytes after the checksum", sourceName, size - pos - 8);
  std::uint64_t stored = readU64(file.data() + pos);
  if (stored != artifactChecksum(file.first(pos)))
    return makeError("{}: damaged: its checksum does not match its bytes (build it again)", sourceName);
  return ArtifactContents{manifest, file.subspan(soAt, soBytes)};
}

std::string encodeArtifact(std::string_view manifestJson, std::string_view sharedObject) {
  std::string out(kArtifactMagic, sizeof kArtifactMagic);
  out.push_back(static_cast<char>(kArtifactFormatVersion));
  appendU64(out, manifestJson.size());
  out.append(manifestJson);
  appendU64(out, sharedObject.size());
  out.append(sharedObject);
  appendU64(out, artifactChecksum(std::as_bytes(std::span<const char>(out.data(), out.size()))));
  return out;
}

Status writeArtifact(const std::string &path, std::string_view manifestJson, std::string_view sharedObject) {
  if (manifestJson.size() > kMaxManifestBytes)
    return makeError("{}: the manifest is larger than {} bytes", path, kMaxManifestBytes);
  if (sharedObject.size() > kMaxSharedObjectBytes)
    return makeError("{}: the shared object is larger than {} bytes", path, kMaxSharedObjectBytes);
  return writeFileAtomically(path, encodeArtifact(manifestJson, sharedObject));
}

} // namespace linnet::rt
