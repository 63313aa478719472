/* The help page served at /? and /?h: every key, every number form, examples. */
#include "resp.h"

#define HELP_TEXT \
"hxterm " HX_VERSION " - a synthetic HTTP test target\n" \
"\n" \
"Served over HTTP/1.0, HTTP/1.1, h2c, h2 and HTTP/3, all the same way.\n" \
"Every response is described by the request's query string. Items are\n" \
"<key>=<value>, separated by any of & ? , ; / and read from the first '?'.\n" \
"The same items may be sent in an 'X-Hxterm: s=1k&t=5' request header; the\n" \
"query string wins on conflicts. Unknown keys are ignored, but named in an\n" \
"X-Hxterm-Ignored header (--strict: 400); a bad value is\n" \
"answered 400 naming the item, at once (before any wait asked for).\n" \
"Flags (c C K S R A e E) take any number, on when above 0 (c=: caching\n" \
"off below 1), as httpterm and haterm read them: K=30r is fine.\n" \
"\n" \
"Numbers (every numeric key):\n" \
"  123        decimal only (010 is ten)\n" \
"  20k 3m 1g  x1024, x1024^2, x1024^3\n" \
"  500r       uniform random in [0, 500]; suffixes combine in any order\n" \
"  10-50      uniform random in [10, 50]\n" \
"  20~400     log-normal: median 20, 99th percentile 400\n" \
"  503:5+429:5+200\n" \
"             weighted choice, weights in percent, the last takes the rest;\n" \
"             up to 3 decimals: t=1:99.9+200 waits 200 ms once in a thousand\n" \
"\n" \
"Keys:\n" \
"  s=<size>   body size in bytes (HEAD: announced, not sent)   default 0\n" \
"  r=<code>   status code, 200 to 999                           default 200\n" \
"  t=<ms>     wait this long before responding                  default 0\n" \
"  c=0        Cache-Control: no-cache                           cacheable\n" \
"  C=1        close the connection after this response (HTTP/1)\n" \
"  K=1        keep the connection alive after it (HTTP/1, even 1.0)\n" \
"  k=<n>      chunked transfer encoding, chunks of n bytes      off\n" \
"             (h2, h3: no content-length, DATA frames of n bytes)\n" \
"  S=0        no splice for this body (sent by writev instead)\n" \
"  R=1        random bytes instead of the line pattern          off\n" \
"  A=1        respond first, then drain the request body        drain first\n" \
"  b=0        no Content-Length (HTTP/1: close-delimited body)\n" \
"  b=<n>      announce Content-Length n whatever is sent (a lie)\n" \
"  B=<n>      read at most n body bytes before responding       all\n" \
"  e=1        ETag derived from the target; If-None-Match -> 304\n" \
"             (GET, HEAD) or 412 (other methods); If-Match listing\n" \
"             neither it nor * -> 412\n" \
"  L=1        Last-Modified derived from the target (a date in\n" \
"             2025); If-Modified-Since not before it -> 304 (GET,\n" \
"             HEAD); If-Unmodified-Since before it -> 412. Dates in\n" \
"             IMF-fixdate, RFC 850 or asctime form\n" \
"  m=<s>      Cache-Control: max-age=s (with c=0: no-cache too)\n" \
"  M=<s>      Cache-Control: s-maxage=s\n" \
"  cc=<d+d>   Cache-Control directives: public, private, no-store,\n" \
"             must-revalidate, immutable, no-transform ('+' between)\n" \
"  age=<s>    Age: s (an answer already s seconds old)\n" \
"  V=<name>   Vary: name, and X-Hxterm-Vary: the value it answered for\n" \
"  p=<n>      send the body in pieces of at most n bytes        off\n" \
"  d=<ms>     with p=, pause this long between pieces           0\n" \
"  P=<ms>     pause after the response before the next request  0\n" \
"             (HTTP/1)\n" \
"  w=<ms>     keep-alive idle timeout for this connection (HTTP/1)\n" \
"  hint=<l>   a 103 Early Hints with Link: l (%-decoded; 1: a default)\n" \
"             at once, before any t= wait (HTTP/1.1, h2, h3)\n" \
"  h2s=<n>    h2: SETTINGS MAX_CONCURRENT_STREAMS n after this answer\n" \
"             (h3: n streams at once, credit held back)\n" \
"  h2w=<n>    h2: SETTINGS INITIAL_WINDOW_SIZE n after this answer\n" \
"  ping=<ms>  h2: server PINGs every ms from this answer on (0: one;\n" \
"             h3: a PING after each quiet ms)\n" \
"  maxreq=<n> this connection ends after its nth request (HTTP/1:\n" \
"             Connection: close; h2, h3: GOAWAY)    --conn-requests\n" \
"  x=<n>      fault: reset after n body bytes (h2: RST_STREAM,\n" \
"             h3: RESET_STREAM)\n" \
"  X=<n>      fault: close after n body bytes (h2: GOAWAY,\n" \
"             h3: CONNECTION_CLOSE)\n" \
"  z=<n>      pad the response head to about n bytes (max 1m)\n" \
"  H=N:V      add response header N: V (V %-decoded, repeatable)\n" \
"  T=N:V      add trailer N: V (chunked HTTP/1, h2, h3; repeatable)\n" \
"  E=1        body = the request headers as received\n" \
"  E=2        body = the request body (its Content-Type too), once it\n" \
"             is all in; at most 16 MiB (413 beyond); not with A= or B=\n" \
"  ws=echo    a WebSocket (HTTP/1.1 Upgrade or h2 extended CONNECT;\n" \
"             the default for one): each message sent back\n" \
"  ws=gen     a WebSocket sending n= messages of s= bytes (the body\n" \
"             pattern; R=1: binary, random), d= ms apart, s= and d=\n" \
"             drawn per message, then a close 1000; x=/X= count\n" \
"             message bytes\n" \
"  sse=1      server-sent events (text/event-stream): n= events,\n" \
"             each 'id: <10 digits>', 'data: <send time, epoch us> <s=\n" \
"             bytes>', d= ms apart (drawn per event); Last-Event-ID\n" \
"             resumes after that id (none left: 204); x=/X= count\n" \
"             event bytes; h1 chunked, an event a chunk (b=0: close)\n" \
"  retry=<ms> sse=1: a 'retry: <ms>' line in each event\n" \
"  ttft=<ms>  the body's first byte this long after the head (any\n" \
"             body); sse=1: the first event (a token stream's time to\n" \
"             first token; drawn once); s= random: drawn per event\n" \
"  done=1     sse=1: 'data: [DONE]' after the last event\n" \
"  n=<n>      ws=gen, gRPC: how many messages; sse=1: events     1\n" \
"  h          this page (so is an empty query: /?)\n" \
"gRPC: a request with Content-Type application/grpc (h2, h3) is a call,\n" \
"answered whatever its method: the query from its x-hxterm metadata, n=\n" \
"messages of s= pattern bytes in field 1, d= apart; grpc-status from r=\n" \
"(200 OK, 400 INVALID_ARGUMENT, 401 UNAUTHENTICATED, 403 PERMISSION_DENIED,\n" \
"404 NOT_FOUND, 409 ALREADY_EXISTS, 412 FAILED_PRECONDITION, 416\n" \
"OUT_OF_RANGE, 429 RESOURCE_EXHAUSTED, 499 CANCELLED, 500 INTERNAL, 501\n" \
"UNIMPLEMENTED, 503 UNAVAILABLE, 504 DEADLINE_EXCEEDED, else UNKNOWN);\n" \
"grpc-timeout ends it DEADLINE_EXCEEDED; x= resets the stream.\n" \
"A GET's Range (one range: bytes=a-b, a-, -n) gets a 206 with the pattern\n" \
"at that offset and Content-Range, or a 416 past the end; If-Range with\n" \
"the ETag or the Last-Modified date, else the whole body. Several ranges\n" \
"(8 at most) get a 206 multipart/byteranges; bodies cut or framed by k=,\n" \
"b=, p=, x=, X=, E=1 get the whole body. With e=, L=, m=, M=, cc=, age=\n" \
"or V=, a rangeable 200 says Accept-Ranges: bytes, and X-Hxterm-Made\n" \
"(epoch us) tells a cached answer from a fresh one.\n" \
"\n" \
"Response headers:\n" \
"  X-req: size=<request head bytes>, time=<first byte to end of head> ms\n" \
"  X-rsp: id=<name>, code=<status>, cache=<0|1>, [early=1, ][chunked, ]\n" \
"         size=<bytes>, time=<requested wait> ms (<measured end of head to\n" \
"         response> real); early=1: the request came in TLS early data\n" \
"  X-Client: addr=<client>[, proxy=v1|v2, via=<proxy>][, cert=...]: on\n" \
"         PROXY listeners, with --client-ca, and with E=1\n" \
"  Server-Timing: wait;dur=<requested>, gen;dur=<measured>\n" \
"Body: lines of '.123456789.123456789.123456789.123456789.12345678\\n'\n" \
"cut at the size, continuous across writes.\n" \
"\n" \
"Examples:\n" \
"  /?s=20k&c=0&t=700         20 KiB, not cacheable, after 700 ms\n" \
"  /?s=1k&t=20&r=503:50+200  half 503, half 200\n" \
"  /?s=1m&k=16k&T=x-done:1   chunked in 16 KiB chunks, with a trailer\n" \
"  /?t=5~200&s=1k-64k        realistic latency and size spread\n" \
"  /?s=100k&p=1k&d=10        drip 1 KiB every 10 ms\n" \
"  /?s=1m&x=300k             reset after 300 KiB\n" \
"  /?ws=gen&s=1k-64k&n=100&d=5~100  a WebSocket of 100 messages\n" \
"  /?sse=1&n=10&s=100&d=500  10 events, half a second apart\n"

const struct ist help_page = IST(HELP_TEXT);
