vcl 4.1;

# Edge cache in front of the REST bridge (Varnish 7.1, xkey from varnish-modules).
#
# - Caches GET/HEAD only, never a request that carries Authorization (or Cookie, as the
#   built-in VCL does), and only responses whose Cache-Control/Expires allow it; the TTL
#   follows s-maxage first, then max-age (Varnish's own rule).
# - X-Svc-Site-Key is part of the cache key: delivery differs per site.
# - A preview link (`preview=<token>` in the query string) shows a draft to whoever holds the
#   token: such a request is always passed, never looked up or stored (the bridge also answers
#   it with Cache-Control: private, no-store, which alone would make it uncacheable).
# - Conditional requests: Varnish answers If-None-Match/If-Modified-Since from the cached
#   ETag/Last-Modified itself; passed requests forward them to the bridge unchanged; kept
#   objects are revalidated against the bridge with If-None-Match.
# - Purge by surrogate key: `PURGE` with header `xkey: key1 key2` from an address in
#   acl purgers -> 200 with X-Purged: <n> and body {"purged":<n>}; without xkey -> 400;
#   from elsewhere -> 403. The bridge tags responses with `xkey` (and `Surrogate-Key`, which
#   is used as xkey when xkey is absent).
# - X-Cache: HIT|MISS on every response (MISS covers passes too).
#
# Tests rewrite the backend address: keep the .host and .port lines exactly as they are.

import xkey;

backend bridge {
    .host = "graph";
    .port = "8084";
    .connect_timeout = 5s;
    .first_byte_timeout = 120s;
    .between_bytes_timeout = 120s;
}

# Who may purge: loopback and the private ranges container networks use.
acl purgers {
    "localhost";
    "127.0.0.1";
    "::1";
    "10.0.0.0"/8;
    "172.16.0.0"/12;
    "192.168.0.0"/16;
}

sub vcl_recv {
    # Varnish's own liveness, without touching the bridge.
    if (req.url == "/.varnish/health") {
        return (synth(200, "OK"));
    }

    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        if (!req.http.xkey) {
            return (synth(400, "PURGE needs an xkey header"));
        }
        set req.http.x-svc-purged = xkey.purge(req.http.xkey);
        return (synth(200, "Purged"));
    }

    if (req.http.Upgrade ~ "(?i)websocket") {
        return (pipe);
    }
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    if (req.http.Authorization) {
        return (pass);
    }
    if (req.url ~ "[?&]preview=") {
        return (pass);
    }
    # Falls through to the built-in vcl_recv (pass on Cookie, otherwise hash).
}

sub vcl_hash {
    if (req.http.X-Svc-Site-Key) {
        hash_data("site:" + req.http.X-Svc-Site-Key);
    } else {
        hash_data("site:-");
    }
    # Falls through to the built-in vcl_hash (URL and Host).
}

sub vcl_pipe {
    if (req.http.Upgrade) {
        set bereq.http.Upgrade = req.http.Upgrade;
        set bereq.http.Connection = req.http.Connection;
    }
}

sub vcl_backend_response {
    # The bridge names its surrogate keys in xkey; Surrogate-Key is the same list under the
    # CDN name, so either one makes the object purgeable.
    if (!beresp.http.xkey && beresp.http.Surrogate-Key) {
        set beresp.http.xkey = beresp.http.Surrogate-Key;
    }

    # Cache only what the bridge declares cacheable: no Cache-Control and no Expires means
    # no caching (rather than Varnish's default TTL).
    if (!beresp.http.Cache-Control && !beresp.http.Expires) {
        set beresp.ttl = 120s;
        set beresp.uncacheable = true;
        return (deliver);
    }

    if (beresp.ttl > 0s) {
        # A little grace for stale-while-revalidate, and keep objects that carry a
        # validator so an expired one is refreshed with a conditional request.
        set beresp.grace = 10s;
        if (beresp.http.ETag || beresp.http.Last-Modified) {
            set beresp.keep = 1h;
        }
    }
    # Falls through to the built-in vcl_backend_response (no-store/private/Set-Cookie/
    # Vary: * and non-positive TTLs become hit-for-miss).
}

sub vcl_deliver {
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
    # Surrogate keys are for the cache and its purgers, not for the public.
    if (client.ip !~ purgers) {
        unset resp.http.xkey;
        unset resp.http.Surrogate-Key;
    }
}

sub vcl_synth {
    set resp.http.Cache-Control = "no-store";
    if (req.method == "PURGE" && resp.status == 200) {
        set resp.http.X-Purged = req.http.x-svc-purged;
        set resp.http.Content-Type = "application/json";
        synthetic({"{"purged":"} + req.http.x-svc-purged + {"}"});
    } else {
        set resp.http.Content-Type = "text/plain; charset=utf-8";
        synthetic(resp.status + " " + resp.reason);
    }
    return (deliver);
}
