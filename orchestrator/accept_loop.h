#pragma once
// The accept loop of the orchestrator's listeners (telemetry_server: the sessions' Unix socket;
// join_listener: TCP for joined peers), in one place: every accepted socket close-on-exec, and a
// failing accept (out of descriptors and the like: the pending connection stays queued, so
// accepting again at once would spin the event loop) said once and retried every 100 ms.
#include <utility>  // before Asio (GCC 12 + Boost coroutine headers)

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <memory>
#include <string>

#include "orchestrator/cloexec.h"

namespace seatmark::orchestrator {

// Accepts on `acceptor` until `*alive` is false or it is closed; `on_socket(socket)` for each
// connection, `on_error(what)` once per run of failures. `acceptor` and `failing` belong to the
// owner, which outlives every pending accept while `*alive` holds.
template <class Acceptor, class OnSocket, class OnError>
void accept_loop(boost::asio::io_context& io, Acceptor& acceptor, std::shared_ptr<bool> alive, bool& failing,
                 OnSocket on_socket, OnError on_error) {
    using Socket = typename Acceptor::protocol_type::socket;
    acceptor.async_accept([&io, &acceptor, alive, &failing, on_socket, on_error](boost::system::error_code ec,
                                                                                   Socket s) mutable {
        if (!*alive || ec == boost::asio::error::operation_aborted) return;
        if (!ec) {
            failing = false;
            mark_cloexec(s.native_handle());
            on_socket(std::move(s));
            accept_loop(io, acceptor, alive, failing, std::move(on_socket), std::move(on_error));
            return;
        }
        if (!failing) on_error(ec.message());
        failing = true;
        auto retry = std::make_shared<boost::asio::steady_timer>(io, std::chrono::milliseconds(100));
        retry->async_wait([&io, &acceptor, alive, &failing, retry, on_socket, on_error](boost::system::error_code) {
            if (*alive) accept_loop(io, acceptor, alive, failing, on_socket, on_error);
        });
    });
}

}  // namespace seatmark::orchestrator
