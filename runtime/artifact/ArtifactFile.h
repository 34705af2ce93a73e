// The `.lnpkg` container (docs/abi.md): magic, manifest, shared object,
// checksum.
//
//     offset 0  8 bytes  "LNPKG\0\0\2" (the last byte is the format version)
//               u64 LE   M, then M bytes of manifest JSON
//               u64 LE   N, then N bytes of ELF shared object
//               u64 LE   FNV-1a 64 of every byte before it; nothing follows
//
// splitArtifact() checks the magic and version and every length against the
// size of the bytes before it looks at them, then the checksum (a damaged
// file would otherwise reach dlopen, which trusts the ELF it is given and
// faults on a flipped byte), and returns views into those
// bytes (no copy: the caller keeps them alive). writeArtifact() is what the
// compiler calls: it writes a temporary file beside `path` and renames it
// over `path`, so a reader never sees half an artifact.
#pragma once

#include "runtime/support/Status.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace linnet::rt {

inline constexpr char kArtifactMagic[7] = {'L', 'N', 'P', 'K', 'G', '\0', '\0'};
inline constexpr std::uint8_t kArtifactFormatVersion = 2;
// Bounds on what a file may declare; larger values are rejected as malformed.
inline constexpr std::uint64_t kMaxManifestBytes = 64ull << 20;
inline constexpr std::uint64_t kMaxSharedObjectBytes = 4ull << 30;

// Views of the two parts of an artifact, into the caller's bytes.
struct ArtifactContents {
  std::string_view manifestJson;
  std::span<const std::byte> sharedObject;
};

// FNV-1a, 64 bits, of `bytes`: the container's checksum.
std::uint64_t artifactChecksum(std::span<const std::byte> bytes);

// Splits an artifact image. `sourceName` prefixes every message.
Expected<ArtifactContents> splitArtifact(std::span<const std::byte> file, std::string_view sourceName);

// The bytes of an artifact holding `manifestJson` and `sharedObject`.
std::string encodeArtifact(std::string_view manifestJson, std::string_view sharedObject);

// Writes encodeArtifact(...) to `path` atomically (temporary file in the
// same directory, fsync, rename). Errors name the path and the OS reason.
Status writeArtifact(const std::string &path, std::string_view manifestJson, std::string_view sharedObject);

} // namespace linnet::rt
