#pragma once
// The writer thread's statements for the endpoint tables (store/endpoint_rows.h).
#include "store/endpoint_rows.h"
#include "store/sqlite_handle.h"

namespace seatmark::store {

class EndpointStatements {
public:
    explicit EndpointStatements(const Db& db);
    void logon(const EndpointLogonRow& r);    // insert or replace the whole row
    void batch(const EndpointBatch& b);

private:
    Stmt logon_, arrival_, ssim_;
};

}  // namespace seatmark::store
