"""Latency of `graphmend server`: time from a didChange to its publishDiagnostics, on one file of
a large project (every other file of the project read for cross-file facts).

    python bench/server/latency.py BINARY PROJECT_ROOT FILE [CHANGES]

PROJECT_ROOT is the workspace (it should hold a pyproject.toml, so that it is the project the file
belongs to). Prints the open's latency and each change's (wall time, and the server's CPU time,
which a busy machine inflates less), then the medians of the changes and the server's peak RSS.
bench/incremental.py runs it too (latency()).
"""

import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time


def frame(message):
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(stream):
    length = None
    while True:
        line = stream.readline()
        if not line:
            raise EOFError("the server closed its output")
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return json.loads(stream.read(length))


def latency(binary, root, path, changes=5, log=print):
    """Opens `path` in a server over the project at `root`, then types `changes` keystrokes in it;
    returns the open's and each change's wall and CPU time (ms), their medians, and the server's
    peak RSS (MB)."""
    server = subprocess.Popen([binary, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    ticks = os.sysconf("SC_CLK_TCK")

    def cpu_ms():
        fields = pathlib.Path(f"/proc/{server.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return 1000 * (int(fields[11]) + int(fields[12])) / ticks  # utime + stime

    def send(message):
        server.stdin.write(frame(message))
        server.stdin.flush()

    def diagnostics():
        while True:
            m = read_message(server.stdout)
            if m.get("method") == "textDocument/publishDiagnostics":
                return m["params"]["diagnostics"]

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"capabilities": {}, "rootUri": root.as_uri()}})
    read_message(server.stdout)
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    uri = path.as_uri()
    text = path.read_text()
    t0, c0 = time.perf_counter(), cpu_ms()
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
          "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}})
    found = diagnostics()
    out = {"open_ms": round(1000 * (time.perf_counter() - t0)), "open_cpu_ms": round(cpu_ms() - c0),
           "findings": len(found), "changes": []}
    log(f"open: {out['open_ms']} ms (CPU {out['open_cpu_ms']} ms), {len(found)} findings")
    for version in range(2, changes + 2):
        # One keystroke: a space typed at the end of the first line.
        first_line = text.split("\n", 1)[0]
        t0, c0 = time.perf_counter(), cpu_ms()
        send({"jsonrpc": "2.0", "method": "textDocument/didChange",
              "params": {"textDocument": {"uri": uri, "version": version},
                         "contentChanges": [{"range": {"start": {"line": 0, "character": len(first_line)},
                                                       "end": {"line": 0, "character": len(first_line)}},
                                             "text": " "}]}})
        found = diagnostics()
        change = {"ms": round(1000 * (time.perf_counter() - t0)), "cpu_ms": round(cpu_ms() - c0)}
        out["changes"].append(change)
        log(f"change {version - 1}: {change['ms']} ms (CPU {change['cpu_ms']} ms), {len(found)} findings")
    out["median_change_ms"] = round(statistics.median(c["ms"] for c in out["changes"]))
    out["median_change_cpu_ms"] = round(statistics.median(c["cpu_ms"] for c in out["changes"]))
    status = pathlib.Path(f"/proc/{server.pid}/status").read_text()
    out["peak_rss_mb"] = round(int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024)
    log(f"median change: {out['median_change_ms']} ms (CPU {out['median_change_cpu_ms']} ms); "
        f"peak RSS {out['peak_rss_mb']} MB")
    send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    read_message(server.stdout)
    send({"jsonrpc": "2.0", "method": "exit"})
    server.wait(timeout=60)
    return out


def main():
    binary, root, path = sys.argv[1], pathlib.Path(sys.argv[2]).resolve(), pathlib.Path(sys.argv[3]).resolve()
    latency(binary, root, path, int(sys.argv[4]) if len(sys.argv) > 4 else 5)


if __name__ == "__main__":
    main()
