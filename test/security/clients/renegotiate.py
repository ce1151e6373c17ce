"""A TLS 1.2 client that renegotiates from its side with another certificate (OpenSSL through ctypes).

Usage: renegotiate.py HOST PORT PATH FIRST_CERT FIRST_KEY SECOND_CERT SECOND_KEY
Prints one JSON line: the status of a request before, whether the renegotiation completed, and the
status of a request after it ("closed" when the connection was lost).
"""

import ctypes
import ctypes.util
import json
import signal
import socket
import sys

ssl = ctypes.CDLL(ctypes.util.find_library("ssl") or "libssl.so.3")
P = ctypes.c_void_p
for name, args, res in [
    ("TLS_client_method", [], P),
    ("SSL_CTX_new", [P], P),
    ("SSL_CTX_ctrl", [P, ctypes.c_int, ctypes.c_long, P], ctypes.c_long),
    ("SSL_new", [P], P),
    ("SSL_set_fd", [P, ctypes.c_int], ctypes.c_int),
    ("SSL_connect", [P], ctypes.c_int),
    ("SSL_use_certificate_file", [P, ctypes.c_char_p, ctypes.c_int], ctypes.c_int),
    ("SSL_use_PrivateKey_file", [P, ctypes.c_char_p, ctypes.c_int], ctypes.c_int),
    ("SSL_renegotiate", [P], ctypes.c_int),
    ("SSL_do_handshake", [P], ctypes.c_int),
    ("SSL_write", [P, ctypes.c_char_p, ctypes.c_int], ctypes.c_int),
    ("SSL_read", [P, ctypes.c_char_p, ctypes.c_int], ctypes.c_int),
]:
    fn = getattr(ssl, name)
    fn.argtypes, fn.restype = args, res

PEM = 1
SSL_CTRL_SET_MAX_PROTO_VERSION = 124
TLS1_2_VERSION = 0x0303

host, port, path, first_cert, first_key, second_cert, second_key = sys.argv[1:8]


def request(conn):
    line = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: application/json\r\n\r\n".encode()
    if ssl.SSL_write(conn, line, len(line)) <= 0:
        return "closed"
    buf = ctypes.create_string_buffer(65536)
    got = b""
    while b"\r\n\r\n" not in got:
        n = ssl.SSL_read(conn, buf, len(buf))
        if n <= 0:
            return "closed"
        got += buf.raw[:n]
    # The rest of this answer (its body) is left unread: the next read is of the next answer only after a new request.
    length = 0
    for header in got.split(b"\r\n\r\n")[0].split(b"\r\n")[1:]:
        if header.lower().startswith(b"content-length:"):
            length = int(header.split(b":")[1])
    body = got.split(b"\r\n\r\n", 1)[1]
    while len(body) < length:
        n = ssl.SSL_read(conn, buf, len(buf))
        if n <= 0:
            break
        body += buf.raw[:n]
    return int(got.split(b" ")[1])


ctx = ssl.SSL_CTX_new(ssl.TLS_client_method())
ssl.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MAX_PROTO_VERSION, TLS1_2_VERSION, None)
# OpenSSL needs a blocking descriptor (a Python timeout makes it non-blocking); an alarm bounds the run instead.
signal.alarm(20)
sock = socket.create_connection((host, int(port)))
conn = ssl.SSL_new(ctx)
ssl.SSL_set_fd(conn, sock.fileno())
assert ssl.SSL_use_certificate_file(conn, first_cert.encode(), PEM) == 1
assert ssl.SSL_use_PrivateKey_file(conn, first_key.encode(), PEM) == 1
assert ssl.SSL_connect(conn) == 1, "handshake failed"
before = request(conn)
assert ssl.SSL_use_certificate_file(conn, second_cert.encode(), PEM) == 1
assert ssl.SSL_use_PrivateKey_file(conn, second_key.encode(), PEM) == 1
renegotiated = ssl.SSL_renegotiate(conn) == 1 and ssl.SSL_do_handshake(conn) == 1
after = request(conn)
print(json.dumps({"before": before, "renegotiated": renegotiated, "after": after}))
