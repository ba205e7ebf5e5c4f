// The token file's readers on Windows (common/token_file_windows.cpp): the access-list walk on
// ACLs built in memory by SetEntriesInAcl (Everyone, Users, Authenticated Users; write-only;
// a deny before an allow; inherit-only; no DACL at all). Run as a Windows executable under Wine.
// Wine keeps no real ACL on a file (it answers with one made from the Unix mode bits: SYSTEM and
// the owner, plus Everyone when others may read), so the file path is tested end to end by
// tests/wine/test_wine_join.cpp with a token file chmod-ed 644 and 600.
#include <doctest/doctest.h>

#include <windows.h>
#include <aclapi.h>

#include <string>
#include <vector>

#include "common/token_acl_windows.h"

using namespace seatmark;

namespace {

struct Entry {
    WELL_KNOWN_SID_TYPE sid;
    ACCESS_MODE mode;
    DWORD rights;
    DWORD inheritance = NO_INHERITANCE;
};

// The walk's answer for a DACL holding these entries (SetEntriesInAcl orders denies first, as
// Windows' own editors do).
std::string reader_of(const std::vector<Entry>& entries) {
    std::vector<std::vector<unsigned char>> sids;
    for (const auto& e : entries) {
        DWORD n = SECURITY_MAX_SID_SIZE;
        sids.emplace_back(n);
        REQUIRE(CreateWellKnownSid(e.sid, nullptr, sids.back().data(), &n));
    }
    std::vector<EXPLICIT_ACCESSW> ea;
    for (size_t i = 0; i < entries.size(); ++i) {
        EXPLICIT_ACCESSW a{};
        a.grfAccessPermissions = entries[i].rights;
        a.grfAccessMode = entries[i].mode;
        a.grfInheritance = entries[i].inheritance;
        a.Trustee.TrusteeForm = TRUSTEE_IS_SID;
        a.Trustee.ptstrName = reinterpret_cast<LPWSTR>(sids[i].data());
        ea.push_back(a);
    }
    PACL acl = nullptr;
    REQUIRE(SetEntriesInAclW(ULONG(ea.size()), ea.data(), nullptr, &acl) == ERROR_SUCCESS);
    std::string who = join::broad_reader(acl);
    LocalFree(acl);
    return who;
}

}  // namespace

TEST_CASE("token file ACL on Windows: Everyone, Users or Authenticated Users able to read it is found") {
    const Entry system_full{WinLocalSystemSid, SET_ACCESS, GENERIC_ALL};
    const Entry admins_full{WinBuiltinAdministratorsSid, SET_ACCESS, GENERIC_ALL};
    CHECK(reader_of({system_full, admins_full}).empty());
    CHECK(reader_of({system_full, {WinWorldSid, SET_ACCESS, GENERIC_READ}}) == "Everyone");
    CHECK(reader_of({system_full, {WinBuiltinUsersSid, SET_ACCESS, FILE_GENERIC_READ | FILE_GENERIC_EXECUTE}}) == "Users");
    CHECK(reader_of({admins_full, {WinAuthenticatedUserSid, SET_ACCESS, FILE_READ_DATA}}) == "Authenticated Users");
    CHECK(reader_of({{WinWorldSid, SET_ACCESS, GENERIC_ALL}}) == "Everyone");
    // Rights that do not read the bytes: nobody is warned about.
    CHECK(reader_of({system_full, {WinWorldSid, SET_ACCESS, FILE_WRITE_DATA | FILE_READ_ATTRIBUTES}}).empty());
    // A deny of reading ahead of the allow keeps the group out; one group denied, another not.
    CHECK(reader_of({system_full, {WinWorldSid, DENY_ACCESS, FILE_READ_DATA}, {WinWorldSid, GRANT_ACCESS, GENERIC_READ}}).empty());
    CHECK(reader_of({{WinWorldSid, DENY_ACCESS, FILE_READ_DATA}, {WinBuiltinUsersSid, SET_ACCESS, GENERIC_READ}}) == "Users");
    // An inherit-only ACE is for the folder's children, not this file.
    CHECK(reader_of({system_full, {WinWorldSid, SET_ACCESS, GENERIC_READ, INHERIT_ONLY | OBJECT_INHERIT_ACE}}).empty());
    // No DACL: everyone has every right.
    CHECK(join::broad_reader(nullptr).find("everyone") == 0);
}
