// Who may read a token file on Windows: its access list (common/join_auth.h). Mode bits mean
// nothing there (MinGW's stat reports every file readable by all); what decides is the DACL,
// read with GetNamedSecurityInfo and walked in order, as Windows evaluates it: an ACE that
// denies read to a group before one that allows it keeps that group out. Files inherit their
// folder's ACEs, so a token in C:\ProgramData (Users may read) is warned about until the
// inheritance is removed.
#include <windows.h>
#include <aclapi.h>

#include <array>

#include "common/join_auth.h"
#include "common/token_acl_windows.h"
#include "common/win_text.h"

namespace seatmark::join {

namespace {

// Reading the token's bytes: the file right itself or a generic right that maps to it.
bool reads(DWORD mask) { return (mask & (FILE_READ_DATA | GENERIC_READ | GENERIC_ALL | MAXIMUM_ALLOWED)) != 0; }

struct Group {
    WELL_KNOWN_SID_TYPE type;
    const char* name;
};
constexpr std::array<Group, 3> broad_groups{{{WinWorldSid, "Everyone"},
                                             {WinBuiltinUsersSid, "Users"},
                                             {WinAuthenticatedUserSid, "Authenticated Users"}}};

std::string fix(const std::string& path) {
    return "`icacls \"" + path + "\" /inheritance:r /grant:r \"%USERNAME%:R\" SYSTEM:R` (and the test users' group, "
           "if sessions read it)";
}

}  // namespace

std::string broad_reader(const ACL* dacl) {
    if (!dacl) return "everyone (it has no access list)";
    std::array<bool, broad_groups.size()> denied{};
    for (DWORD i = 0; i < dacl->AceCount; ++i) {
        void* ace = nullptr;
        if (!GetAce(const_cast<ACL*>(dacl), i, &ace)) break;
        const auto* h = static_cast<const ACE_HEADER*>(ace);
        if (h->AceFlags & INHERIT_ONLY_ACE) continue;  // for children only, not this file
        PSID sid = nullptr;
        DWORD mask = 0;
        if (h->AceType == ACCESS_ALLOWED_ACE_TYPE) {
            const auto* a = static_cast<const ACCESS_ALLOWED_ACE*>(ace);
            sid = PSID(&a->SidStart), mask = a->Mask;
        } else if (h->AceType == ACCESS_DENIED_ACE_TYPE) {
            const auto* d = static_cast<const ACCESS_DENIED_ACE*>(ace);
            sid = PSID(&d->SidStart), mask = d->Mask;
        } else {
            continue;
        }
        if (!reads(mask)) continue;
        for (size_t g = 0; g < broad_groups.size(); ++g) {
            if (!IsWellKnownSid(sid, broad_groups[g].type)) continue;
            if (h->AceType == ACCESS_DENIED_ACE_TYPE) denied[g] = true;
            else if (!denied[g]) return broad_groups[g].name;
        }
    }
    return {};
}

std::string token_file_warning(const std::string& path) {
    PACL dacl = nullptr;
    PSECURITY_DESCRIPTOR sd = nullptr;
    const DWORD rc = GetNamedSecurityInfoW(wide(path).c_str(), SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, nullptr,
                                           nullptr, &dacl, nullptr, &sd);
    if (rc != ERROR_SUCCESS) return {};  // a missing file is read_token_file's error; no ACLs here: nothing to say
    const std::string who = broad_reader(dacl);
    LocalFree(sd);
    if (who.empty()) return {};
    return "token file " + path + " can be read by " + who + "; " + fix(path);
}

}  // namespace seatmark::join
