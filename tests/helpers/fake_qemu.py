#!/usr/bin/env python3
# fake_qemu.py - a stand-in QEMU process for lifecycle tests (run as: exec -a qemu-system-x86_64
# python3 fake_qemu.py -name guest=NAME -smp N [-qmp unix:PATH,server=on,wait=off]).
# Its vCPU threads are named "CPU n/KVM" as QEMU names them with debug-threads=on and each burns
# BUSY of every 100 ms (FAKE_QEMU_BUSY, default 0.02 s) so that its task-clock counts; SIGUSR1
# adds one more vCPU thread (QEMU's own hot-plug under software emulation is unreliable).  With
# -qmp, it answers QMP's greeting, qmp_capabilities and query-status; SIGUSR2 toggles paused
# (its vCPU threads then sleep, as a stopped QEMU's do).  FAKE_QEMU_IO=1 adds the threads that
# move a VM's I/O as QEMU and Linux 6.4+ name them: an IOThread "IO iothread1" and a vhost worker
# "vhost-PID" (a thread of the QEMU process since 6.4), each sleeping.
import os, signal, socket, sys, threading, time

args = sys.argv[1:]
n = int(args[args.index("-smp") + 1]) if "-smp" in args else 1
qmp = None
if "-qmp" in args:
    v = args[args.index("-qmp") + 1]
    qmp = v[len("unix:"):].split(",")[0]
busy = float(os.environ.get("FAKE_QEMU_BUSY", "0.02"))
paused = False
lock = threading.Lock()
count = 0


def vcpu(idx):
    with open("/proc/self/task/%d/comm" % threading.get_native_id(), "w") as f:
        f.write("CPU %d/KVM" % idx)
    while True:
        t0 = time.monotonic()
        if not paused:
            while time.monotonic() - t0 < busy:
                pass
        time.sleep(max(0.0, 0.1 - (time.monotonic() - t0)))


def add_vcpu():
    global count
    with lock:
        i = count
        count += 1
    threading.Thread(target=vcpu, args=(i,), daemon=True).start()


def serve_qmp(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        os.unlink(path)
    except OSError:
        pass
    s.bind(path)
    s.listen(1)
    while True:
        c, _ = s.accept()
        try:
            c.sendall(b'{"QMP": {"version": {"qemu": {"micro": 0, "minor": 2, "major": 7}}, '
                      b'"capabilities": []}}\r\n')
            buf = b""
            while True:
                d = c.recv(4096)
                if not d:
                    break
                buf += d
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if b"qmp_capabilities" in line:
                        c.sendall(b'{"return": {}}\r\n')
                    elif b"query-status" in line:
                        st = b"paused" if paused else b"running"
                        c.sendall(b'{"return": {"status": "' + st + b'", "singlestep": false, '
                                  b'"running": ' + (b"false" if paused else b"true") + b'}}\r\n')
                    else:
                        c.sendall(b'{"error": {"class": "CommandNotFound", "desc": "x"}}\r\n')
        except OSError:
            pass
        c.close()


def toggle(*_):
    global paused
    paused = not paused


signal.signal(signal.SIGUSR1, lambda *_: add_vcpu())
signal.signal(signal.SIGUSR2, toggle)
signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
def io_thread(name):
    with open("/proc/self/task/%d/comm" % threading.get_native_id(), "w") as f:
        f.write(name)
    while True:
        time.sleep(1)


for _ in range(n):
    add_vcpu()
if os.environ.get("FAKE_QEMU_IO") == "1":
    for name in ("IO iothread1", "vhost-%d" % os.getpid()):
        threading.Thread(target=io_thread, args=(name,), daemon=True).start()
if qmp:
    threading.Thread(target=serve_qmp, args=(qmp,), daemon=True).start()
while True:
    signal.pause()
