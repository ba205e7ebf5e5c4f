#pragma once
// Where records go (`--push URL`), checked before anything starts, and the extra headers a sink
// wants (a bearer token or shared key).
#include <string>
#include <utility>
#include <vector>

namespace seatmark::push {

enum class SinkKind { influx, json };

struct PushTarget {
    std::string url;        // as given, the sink's name in messages and in the ledger
    SinkKind kind = SinkKind::json;
    bool tls = false;
    std::string host, port; // port as digits
    std::string target;     // the request target: path and query
};

using Header = std::pair<std::string, std::string>;

// Accepts
//   influx://HOST[:PORT]/DB[?rp=...&u=...&p=...]  InfluxDB 1.x, POST /write?db=DB&precision=ns (port 8086)
//   influxs://HOST[:PORT]/DB[?...]                 the same over TLS
//   http://HOST[:PORT][/PATH]  https://...         JSON lines, POST PATH
// Throws InputError naming `option` (e.g. "--push"), the URL and what was expected.
PushTarget parse_push_url(const std::string& url, const std::string& option);

// "Name: value" (the value may be empty). Throws InputError naming `where`.
Header parse_header(const std::string& text, const std::string& where);

// One header per line, "Name: value"; blank lines and lines starting with '#' are skipped. Keeps a
// secret off the command line. Throws InputError naming the file and line.
std::vector<Header> read_header_file(const std::string& path);

}  // namespace seatmark::push
