"""Latency of `graphmend server`: time from a didChange to its publishDiagnostics, on one file of
a large project (every other file of the project read for cross-file facts).

    python bench/server/latency.py BINARY PROJECT_ROOT FILE [CHANGES]

PROJECT_ROOT is the workspace (it should hold a pyproject.toml, so that it is the project the file
belongs to). Prints the open's latency and each change's (wall time, and the server's CPU time,
which a busy machine inflates less), then the medians of the changes.
"""

import json
import os
import pathlib
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


def main():
    binary, root, path = sys.argv[1], pathlib.Path(sys.argv[2]).resolve(), pathlib.Path(sys.argv[3]).resolve()
    changes = int(sys.argv[4]) if len(sys.argv) > 4 else 5
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
    print(f"open: {1000 * (time.perf_counter() - t0):.0f} ms (CPU {cpu_ms() - c0:.0f} ms), {len(found)} findings")
    times, cpu = [], []
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
        times.append(1000 * (time.perf_counter() - t0))
        cpu.append(cpu_ms() - c0)
        print(f"change {version - 1}: {times[-1]:.0f} ms (CPU {cpu[-1]:.0f} ms), {len(found)} findings")
    print(f"median change: {statistics.median(times):.0f} ms (CPU {statistics.median(cpu):.0f} ms)")
    send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    read_message(server.stdout)
    send({"jsonrpc": "2.0", "method": "exit"})
    server.wait(timeout=60)


if __name__ == "__main__":
    main()
