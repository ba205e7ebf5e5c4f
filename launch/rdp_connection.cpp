#include "launch/rdp_connection.h"

#include <freerdp/client.h>
#include <freerdp/client/cmdline.h>
#include <freerdp/freerdp.h>
#include <freerdp/gdi/gdi.h>
#include <freerdp/input.h>
#include <freerdp/scancode.h>
#include <freerdp/settings.h>
#include <winpr/synch.h>
#include <winpr/wlog.h>

#include <mutex>

#include "common/clock.h"

namespace seatmark::launch {

const char* fault_name(RdpFault f) {
    switch (f) {
        case RdpFault::none: return "none";
        case RdpFault::refused: return "refused";
        case RdpFault::tls: return "tls";
        case RdpFault::logon: return "logon";
        case RdpFault::protocol: return "protocol";
        case RdpFault::cut: return "cut";
        case RdpFault::logged_off: return "logged-off";
    }
    return "?";
}

std::string CodecCounters::dominant() const {
    const std::pair<uint64_t, const char*> all[] = {
        {remotefx_bytes, "remotefx"}, {nscodec_bytes, "nscodec"}, {raw_surface_bytes, "surface-raw"}, {bitmap_bytes, "bitmap"}};
    uint64_t best = 0;
    const char* name = "none";
    for (const auto& [b, n] : all)
        if (b > best) best = b, name = n;
    return name;
}

// FreeRDP allocates the context with ContextSize bytes; ours carries the way back.
struct LaunchContext {
    rdpContext base;
    RdpConnection::Impl* impl;
};

struct RdpConnection::Impl {
    RdpConnection* self;
    rdpContext* ctx = nullptr;
    pSurfaceBits gdi_surface_bits = nullptr;
    pBitmapUpdate gdi_bitmap_update = nullptr;
    bool disconnect_asked = false;

    static Impl* of(rdpContext* c) { return reinterpret_cast<LaunchContext*>(c)->impl; }

    static BOOL pre_connect(freerdp* instance) {
        // Channels (clipboard, drives, sound) are not loaded: a launcher only watches pixels.
        (void)instance;
        return TRUE;
    }

    static BOOL post_connect(freerdp* instance) {
        if (!gdi_init(instance, PIXEL_FORMAT_BGRX32)) return FALSE;
        rdpUpdate* u = instance->context->update;
        Impl* me = of(instance->context);
        me->gdi_surface_bits = u->SurfaceBits;
        me->gdi_bitmap_update = u->BitmapUpdate;
        u->SurfaceBits = surface_bits;
        u->BitmapUpdate = bitmap_update;
        u->BeginPaint = begin_paint;
        u->EndPaint = end_paint;
        u->SaveSessionInfo = save_session_info;
        return TRUE;
    }

    static void post_disconnect(freerdp* instance) { gdi_free(instance); }

    static DWORD verify_certificate(freerdp*, const char*, UINT16, const char*, const char*, const char*,
                                    const char*, DWORD) {
        return 2;  // accept for this connection only (reached only with ignore_certificate off: refuse then)
    }

    static BOOL surface_bits(rdpContext* c, const SURFACE_BITS_COMMAND* cmd) {
        Impl* me = of(c);
        auto& k = me->self->counters_;
        ++k.surface_commands;
        switch (cmd->bmp.codecID) {
            case RDP_CODEC_ID_REMOTEFX:
            case RDP_CODEC_ID_IMAGE_REMOTEFX: k.remotefx_bytes += cmd->bmp.bitmapDataLength; break;
            case RDP_CODEC_ID_NSCODEC: k.nscodec_bytes += cmd->bmp.bitmapDataLength; break;
            default: k.raw_surface_bytes += cmd->bmp.bitmapDataLength; break;
        }
        return me->gdi_surface_bits(c, cmd);
    }

    static BOOL bitmap_update(rdpContext* c, const BITMAP_UPDATE* b) {
        Impl* me = of(c);
        auto& k = me->self->counters_;
        ++k.bitmap_updates;
        for (UINT32 i = 0; i < b->number; ++i) k.bitmap_bytes += b->rectangles[i].bitmapLength;
        return me->gdi_bitmap_update(c, b);
    }

    // The server's Save Session Info PDU: the logon went through (xrdp sends it once sesman
    // accepted the credentials; after a refused password it shows its logon screen instead).
    static BOOL save_session_info(rdpContext* c, UINT32 type, void*) {
        Impl* me = of(c);
        if (me->self->logged_on_ns_ == 0) me->self->logged_on_ns_ = now_ns();
        me->self->session_info_type_ = type;
        return TRUE;
    }

    static BOOL begin_paint(rdpContext* c) {
        HGDI_WND hwnd = c->gdi->primary->hdc->hwnd;
        hwnd->invalid->null = TRUE;
        hwnd->ninvalid = 0;
        return TRUE;
    }

    static BOOL end_paint(rdpContext* c) {
        rdpGdi* gdi = c->gdi;
        HGDI_WND hwnd = gdi->primary->hdc->hwnd;
        if (hwnd->invalid->null) return TRUE;
        Impl* me = of(c);
        ++me->self->counters_.paints;
        Paint p{now_ns(),
                {gdi->primary_buffer, gdi->width, gdi->height, static_cast<int>(gdi->stride)},
                hwnd->invalid->x, hwnd->invalid->y, hwnd->invalid->w, hwnd->invalid->h};
        hwnd->invalid->null = TRUE;
        hwnd->ninvalid = 0;
        if (me->self->on_paint_) me->self->on_paint_(p);
        return TRUE;
    }

    static BOOL client_new(freerdp* instance, rdpContext*) {
        instance->PreConnect = pre_connect;
        instance->PostConnect = post_connect;
        instance->PostDisconnect = post_disconnect;
        instance->VerifyCertificateEx = verify_certificate;
        return TRUE;
    }
};

namespace {

// FreeRDP logs to stdout through WLog by default; a launcher with many connections keeps it quiet
// (errors still come back through freerdp_get_last_error and become RdpError).
void quiet_wlog_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        WLog_SetLogLevel(WLog_GetRoot(), WLOG_OFF);
    });
}

RdpFault classify(UINT32 e) {
    switch (e) {
        case FREERDP_ERROR_CONNECT_TRANSPORT_FAILED:
        case FREERDP_ERROR_CONNECT_FAILED:
        case FREERDP_ERROR_DNS_ERROR:
        case FREERDP_ERROR_DNS_NAME_NOT_FOUND:
            return RdpFault::refused;
        case FREERDP_ERROR_TLS_CONNECT_FAILED: return RdpFault::tls;
        case FREERDP_ERROR_AUTHENTICATION_FAILED:
        case FREERDP_ERROR_CONNECT_LOGON_FAILURE:
        case FREERDP_ERROR_CONNECT_WRONG_PASSWORD:
        case FREERDP_ERROR_CONNECT_ACCESS_DENIED:
        case FREERDP_ERROR_CONNECT_ACCOUNT_DISABLED:
        case FREERDP_ERROR_CONNECT_ACCOUNT_LOCKED_OUT:
        case FREERDP_ERROR_CONNECT_NO_OR_MISSING_CREDENTIALS:
            return RdpFault::logon;
        default: return RdpFault::protocol;
    }
}

}  // namespace

RdpConnection::RdpConnection(RdpTarget target, PaintObserver on_paint)
    : target_(std::move(target)), on_paint_(std::move(on_paint)), impl_(std::make_unique<Impl>()) {
    quiet_wlog_once();
    impl_->self = this;
    RDP_CLIENT_ENTRY_POINTS ep{};
    ep.Size = sizeof ep;
    ep.Version = RDP_CLIENT_INTERFACE_VERSION;
    ep.ContextSize = sizeof(LaunchContext);
    ep.ClientNew = Impl::client_new;
    rdpContext* ctx = freerdp_client_context_new(&ep);
    if (!ctx) throw RdpError(RdpFault::protocol, "FreeRDP: freerdp_client_context_new failed (out of memory?)");
    reinterpret_cast<LaunchContext*>(ctx)->impl = impl_.get();
    impl_->ctx = ctx;

    rdpSettings* s = ctx->settings;
    freerdp_settings_set_string(s, FreeRDP_ServerHostname, target_.host.c_str());
    freerdp_settings_set_uint32(s, FreeRDP_ServerPort, target_.port);
    freerdp_settings_set_string(s, FreeRDP_Username, target_.user.c_str());
    freerdp_settings_set_string(s, FreeRDP_Password, target_.password.c_str());
    if (!target_.domain.empty()) freerdp_settings_set_string(s, FreeRDP_Domain, target_.domain.c_str());
    freerdp_settings_set_bool(s, FreeRDP_AutoLogonEnabled, TRUE);  // no logon screen: credentials in the Client Info PDU
    freerdp_settings_set_uint32(s, FreeRDP_DesktopWidth, static_cast<UINT32>(target_.width));
    freerdp_settings_set_uint32(s, FreeRDP_DesktopHeight, static_cast<UINT32>(target_.height));
    freerdp_settings_set_uint32(s, FreeRDP_ColorDepth, 32);
    freerdp_settings_set_bool(s, FreeRDP_SoftwareGdi, TRUE);
    freerdp_settings_set_bool(s, FreeRDP_IgnoreCertificate, target_.ignore_certificate ? TRUE : FALSE);
    freerdp_settings_set_bool(s, FreeRDP_SupportGraphicsPipeline, FALSE);
    freerdp_settings_set_bool(s, FreeRDP_AudioPlayback, FALSE);
    freerdp_settings_set_bool(s, FreeRDP_DeviceRedirection, FALSE);
    freerdp_settings_set_bool(s, FreeRDP_RedirectClipboard, FALSE);
    freerdp_settings_set_bool(s, FreeRDP_SurfaceFrameMarkerEnabled, TRUE);
    freerdp_settings_set_bool(s, FreeRDP_FrameMarkerCommandEnabled, TRUE);
    freerdp_settings_set_uint32(s, FreeRDP_TcpConnectTimeout, 5000);
    if (target_.remotefx) {
        freerdp_set_connection_type(s, CONNECTION_TYPE_LAN);
        freerdp_settings_set_bool(s, FreeRDP_RemoteFxCodec, TRUE);
        freerdp_settings_set_bool(s, FreeRDP_FastPathOutput, TRUE);
    }
}

RdpConnection::~RdpConnection() {
    if (connected_) {
        impl_->disconnect_asked = true;
        freerdp_disconnect(impl_->ctx->instance);
    }
    freerdp_client_context_free(impl_->ctx);
}

std::string RdpConnection::peer() const {
    return target_.user + "@" + target_.host + ":" + std::to_string(target_.port);
}

void RdpConnection::connect() {
    freerdp* instance = impl_->ctx->instance;
    if (!freerdp_connect(instance)) {
        const UINT32 e = freerdp_get_last_error(impl_->ctx);
        // A connection that failed after post_connect set up the GDI gets no PostDisconnect.
        if (instance->context->gdi) gdi_free(instance);
        throw RdpError(classify(e), "RDP connection to " + peer() + " failed: " + freerdp_get_last_error_string(e) +
                                        " (" + freerdp_get_last_error_name(e) + ")");
    }
    connected_ = true;
}

void RdpConnection::pump(int timeout_ms) {
    if (!connected_) throw RdpError(RdpFault::cut, "RDP connection to " + peer() + " is not connected");
    HANDLE handles[MAXIMUM_WAIT_OBJECTS];
    const DWORD n = freerdp_get_event_handles(impl_->ctx, handles, MAXIMUM_WAIT_OBJECTS);
    if (n == 0) throw RdpError(RdpFault::protocol, "RDP connection to " + peer() + ": no event handles");
    if (WaitForMultipleObjects(n, handles, FALSE, static_cast<DWORD>(timeout_ms)) == WAIT_FAILED)
        throw RdpError(RdpFault::protocol, "RDP connection to " + peer() + ": waiting for events failed");
    if (!freerdp_check_event_handles(impl_->ctx) || freerdp_shall_disconnect(impl_->ctx->instance)) {
        const UINT32 e = freerdp_get_last_error(impl_->ctx);
        // The server or the network ended it: close our side too, which runs PostDisconnect (the
        // GDI's buffers) and closes the socket; before, only a disconnect we asked for did (ASan).
        freerdp_disconnect(impl_->ctx->instance);
        connected_ = false;
        const bool logoff = e == FREERDP_ERROR_LOGOFF_BY_USER || e == FREERDP_ERROR_RPC_INITIATED_LOGOFF;
        throw RdpError(logoff ? RdpFault::logged_off : RdpFault::cut, "RDP connection to " + peer() + " ended by the server or the network" +
                                          (e ? std::string(": ") + freerdp_get_last_error_string(e) : std::string()));
    }
}

void RdpConnection::send_logoff_keys() {
    if (!connected_) return;
    rdpInput* in = impl_->ctx->input;
    freerdp_input_send_mouse_event(in, PTR_FLAGS_MOVE, 8, 8);
    freerdp_input_send_keyboard_event_ex(in, TRUE, RDP_SCANCODE_ESCAPE);
    pump(200);  // held a moment, as a hand would
    freerdp_input_send_keyboard_event_ex(in, FALSE, RDP_SCANCODE_ESCAPE);
}

void RdpConnection::disconnect() {
    if (!connected_) return;
    impl_->disconnect_asked = true;
    freerdp_disconnect(impl_->ctx->instance);
    connected_ = false;
}

}  // namespace seatmark::launch
