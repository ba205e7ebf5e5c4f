#pragma once
// Opens a .smpack read-only, maps it and checks all of it (header limits before anything is
// mapped, then, in one pass over the payload, its checksum and every index, number and range), so what a session
// uploads cannot read out of bounds or draw NaNs. The spans point into the mapping: nothing is
// converted or copied.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "common/errors.h"
#include "pack/pack_format.h"
#include "workloads/mesh.h"

namespace seatmark {
class FileMapping;
}

namespace seatmark::pack {

// A pack that cannot be used: the message starts with the file's path and says what was wrong.
struct PackError : InputError {
    using InputError::InputError;
};

// Reads only the header (256 bytes) and checks it against the file's size: what `seatmark run`
// needs to check a staged copy (size + payload XXH3) without reading the payload.
PackHeader read_pack_header(const std::string& path);
// read_pack_header, then the payload's XXH3 against the header's, streamed (nothing mapped).
PackHeader verify_pack_payload(const std::string& path);

class PackFile {
public:
    explicit PackFile(const std::string& path);  // throws PackError
    // Checks an in-memory image the same way (the fuzz target and tests); `data` must outlive this.
    PackFile(std::span<const uint8_t> data, std::string name);
    ~PackFile();
    PackFile(const PackFile&) = delete;
    PackFile& operator=(const PackFile&) = delete;

    const PackHeader& header() const { return header_; }
    const std::string& path() const { return path_; }
    std::span<const workloads::Vertex> vertices() const { return vertices_; }
    std::span<const uint32_t> indices() const { return indices_; }
    std::span<const PackMesh> meshes() const { return meshes_; }
    std::span<const PackInstance> instances() const { return instances_; }
    std::span<const PackPart> parts() const { return parts_; }
    std::string_view part_name(size_t part) const;
    workloads::Bounds bounds() const;
    // Done with [p, p + n) of a mapped pack for now: its pages leave this process's resident memory
    // (common/input_file.h's FileMapping::page_out); a later read pages them in again. No-op over bytes.
    void page_out(const void* p, size_t n) const;

private:
    void check(std::span<const uint8_t> data);
    [[noreturn]] void fail(const std::string& what) const;

    std::string path_;
    PackHeader header_{};
    std::unique_ptr<FileMapping> map_;  // common/input_file.h; none for a PackFile over bytes
    std::span<const workloads::Vertex> vertices_;
    std::span<const uint32_t> indices_;
    std::span<const PackMesh> meshes_;
    std::span<const PackInstance> instances_;
    std::span<const PackPart> parts_;
    std::string_view names_;
};

}  // namespace seatmark::pack
