#pragma once
// A TCP forwarder on 127.0.0.1 for cutting an RDP connection the way a network does: the test
// points a launcher at it, then cut() shuts every forwarded connection down at once.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace seatmark::test {

class TcpProxy {
public:
    explicit TcpProxy(int target_port) : target_(target_port) {
        listen_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::bind(listen_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listen_, 8) != 0)
            throw std::runtime_error("TcpProxy: bind/listen failed");
        socklen_t len = sizeof a;
        ::getsockname(listen_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this] { loop(); });
    }
    ~TcpProxy() {
        stop_ = true;
        thread_.join();
        cut();
        ::close(listen_);
    }
    int port() const { return port_; }
    size_t connections() {
        std::lock_guard<std::mutex> l(mu_);
        return pairs_.size();
    }
    // Bytes forwarded from the target to the client so far: what reached the client.
    uint64_t bytes_to_client() const { return to_client_.load(); }
    void cut() {
        std::lock_guard<std::mutex> l(mu_);
        for (auto& [a, b] : pairs_) {
            ::shutdown(a, SHUT_RDWR);
            ::shutdown(b, SHUT_RDWR);
            ::close(a);
            ::close(b);
        }
        pairs_.clear();
    }

private:
    void loop() {
        char buf[65536];
        while (!stop_) {
            std::vector<pollfd> fds{{listen_, POLLIN, 0}};
            {
                std::lock_guard<std::mutex> l(mu_);
                for (auto& [a, b] : pairs_) fds.push_back({a, POLLIN, 0}), fds.push_back({b, POLLIN, 0});
            }
            if (::poll(fds.data(), fds.size(), 50) <= 0) continue;
            std::lock_guard<std::mutex> l(mu_);
            if (fds[0].revents & POLLIN) {
                const int c = ::accept4(listen_, nullptr, nullptr, SOCK_CLOEXEC);
                const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
                sockaddr_in t{};
                t.sin_family = AF_INET;
                t.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
                t.sin_port = htons(static_cast<uint16_t>(target_));
                if (c >= 0 && ::connect(s, reinterpret_cast<sockaddr*>(&t), sizeof t) == 0) pairs_.emplace_back(c, s);
                else ::close(c), ::close(s);
            }
            for (size_t i = 1; i < fds.size(); ++i) {
                if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
                int from = fds[i].fd, to = -1;
                bool to_client = false;
                for (auto& [a, b] : pairs_) {
                    if (a == from) to = b;
                    if (b == from) to = a, to_client = true;
                }
                if (to < 0) continue;  // cut meanwhile
                const ssize_t n = ::read(from, buf, sizeof buf);
                if (n > 0 && to_client) to_client_ += static_cast<uint64_t>(n);
                if (n <= 0 || ::send(to, buf, static_cast<size_t>(n), MSG_NOSIGNAL) != n) {
                    for (auto it = pairs_.begin(); it != pairs_.end(); ++it)
                        if (it->first == from || it->second == from) {
                            ::close(it->first), ::close(it->second);
                            pairs_.erase(it);
                            break;
                        }
                }
            }
        }
    }
    int target_, port_ = 0, listen_ = -1;
    std::atomic<bool> stop_{false};
    std::atomic<uint64_t> to_client_{0};
    std::mutex mu_;
    std::vector<std::pair<int, int>> pairs_;
    std::thread thread_;
};

}  // namespace seatmark::test
