"""The live run's network: two network namespaces, the servers' and the clients'.

Each has a TUN device holding its hosts' addresses and a route to the other side through it,
and nothing else. The router (``aqmlab_live``) attaches to both devices from the namespace it
runs in; no address of the machine's own namespace is used, so nothing leaves the two
namespaces.

Everything is torn down when the ``with`` block ends, however it ends (an error, Ctrl-C,
SIGTERM): the endpoint processes are killed and the namespaces deleted (which deletes their
devices). A run killed with SIGKILL cannot clean up: the next live run deletes the namespaces of
runs whose process is gone (:func:`sweep_stale`).

Namespaces are named ``aqmlab-<pid>-servers`` and ``aqmlab-<pid>-clients``; the devices ``aqs``
and ``aqc``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from aqmlab import _native
from aqmlab.errors import InputError

NETNS_DIR = Path("/run/netns")
PREFIX = "aqmlab-"
DEVICES = {"servers": "aqs", "clients": "aqc"}
OTHER_NET = {"servers": "10.2.0.0/16", "clients": "10.1.0.0/16"}


class LiveUnavailable(InputError):
    """The namespaces a live run needs cannot be made (by this user, on this machine).

    >>> str(LiveUnavailable("needs root"))
    'live: needs root'
    """

    def __init__(self, message: str) -> None:
        super().__init__("live", message)


def _ip(*argv: str, stdin: str | None = None) -> None:
    """Run ``ip`` and raise :class:`LiveUnavailable` with its message if it fails."""
    done = subprocess.run(["ip", *argv], input=stdin, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        why = (done.stderr or done.stdout).strip().splitlines()
        raise LiveUnavailable(f"ip {' '.join(argv)}: {why[-1] if why else 'failed'}")


def check_can_run() -> None:
    """Raise :class:`LiveUnavailable` unless this process can make namespaces and TUN devices."""
    if shutil.which("ip") is None:
        raise LiveUnavailable("needs the ip command (Debian package iproute2)")
    if not Path("/dev/net/tun").exists():
        raise LiveUnavailable("needs /dev/net/tun (the tun kernel module)")
    if not _may_make_namespaces():
        raise LiveUnavailable(
            "needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN) to make network namespaces"
        )


CAP_NET_ADMIN, CAP_SYS_ADMIN = 12, 21
"""linux/capability.h: configure interfaces and routes; mount and setns (namespaces)."""


def _may_make_namespaces() -> bool:
    """Whether this process holds both capabilities ``ip netns`` needs (its ``CapEff``)."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        return os.geteuid() == 0
    for line in status.splitlines():
        if line.startswith("CapEff:"):
            effective = int(line.split()[1], 16)
            return all(effective >> cap & 1 for cap in (CAP_NET_ADMIN, CAP_SYS_ADMIN))
    return os.geteuid() == 0


def namespace_path(name: str) -> Path:
    """Where ``ip netns`` keeps namespace ``name``'s file."""
    return NETNS_DIR / name


def sweep_stale() -> list[str]:
    """Delete the namespaces left by live runs whose process is gone; return their names."""
    gone = []
    for path in sorted(NETNS_DIR.glob(f"{PREFIX}*")) if NETNS_DIR.is_dir() else []:
        pid = path.name[len(PREFIX):].split("-")[0]  # fmt: skip
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            subprocess.run(["ip", "netns", "del", path.name], capture_output=True, check=False)
            gone.append(path.name)
    return gone


def ours() -> list[str]:
    """Return the namespaces this process has made and not yet deleted."""
    if not NETNS_DIR.is_dir():
        return []
    return sorted(p.name for p in NETNS_DIR.glob(f"{PREFIX}{os.getpid()}-*"))


class Lab:
    """The two namespaces of one live run, and the processes running in them."""

    def __init__(self, hosts: Mapping[str, int]) -> None:
        self.hosts = dict(hosts)
        self.names = {side: f"{PREFIX}{os.getpid()}-{side}" for side in DEVICES}
        self.processes: list[subprocess.Popen[str]] = []

    def path(self, side: str) -> Path:
        """Return the namespace file of ``side`` (for the router's setns)."""
        return namespace_path(self.names[side])

    def build(self, route: Mapping[str, Any], sysctls: Mapping[str, int]) -> None:
        """Make both namespaces.

        Each gets its loopback, the TUN device with every host's address, the route to the other
        side (with ``route``'s options, e.g. ``initcwnd``), and ``sysctls``.
        """
        options = [str(v) for item in route.items() for v in item]
        for side, dev in DEVICES.items():
            ns = self.names[side]
            _ip("netns", "add", ns)
            addresses = "".join(
                f"addr add {_native.live_address(side, i)}/32 dev {dev}\n"
                for i in range(self.hosts[side])
            )
            _ip("-n", ns, "-batch", "-", stdin=(
                "link set lo up\n"
                f"tuntap add dev {dev} mode tun\n"
                f"link set {dev} mtu 1500 txqueuelen 10000 up\n"
                + addresses
            ))  # fmt: skip
            _ip("-n", ns, "route", "add", OTHER_NET[side], "dev", dev, *options)
            settings = {"net.ipv6.conf.all.disable_ipv6": 1,
                        "net.ipv6.conf.default.disable_ipv6": 1, **sysctls}  # fmt: skip
            for key, value in settings.items():
                self.exec(side, ["sysctl", "-q", "-w", f"{key}={value}"], check=True)

    def exec(self, side: str, argv: list[str], *, check: bool = False) -> None:
        """Run ``argv`` in ``side``'s namespace to its end."""
        done = subprocess.run(["ip", "netns", "exec", self.names[side], *argv],
                              capture_output=True, text=True, check=False)  # fmt: skip
        if check and done.returncode != 0:
            raise LiveUnavailable(f"{' '.join(argv)}: {done.stderr.strip() or 'failed'}")

    def spawn(self, side: str, argv: list[str]) -> subprocess.Popen[str]:
        """Start ``argv`` in ``side``'s namespace, its stdin and stdout piped to us."""
        p = subprocess.Popen(
            ["ip", "netns", "exec", self.names[side], *argv],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True,
        )  # fmt: skip
        self.processes.append(p)
        return p

    def teardown(self) -> None:
        """Kill the processes and delete the namespaces (and so their devices)."""
        for p in self.processes:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            p.wait()
            for stream in (p.stdin, p.stdout, p.stderr):
                if stream is not None:
                    stream.close()
        for ns in self.names.values():
            if namespace_path(ns).exists():
                subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextmanager
def lab(hosts: Mapping[str, int], route: Mapping[str, Any],
        sysctls: Mapping[str, int]) -> Iterator[Lab]:  # fmt: skip
    """Make the namespaces, yield them, and tear them down however the block ends.

    SIGTERM is taken as Ctrl-C while it runs.
    """
    check_can_run()
    sweep_stale()
    previous = signal.signal(signal.SIGTERM, _terminate)
    made = Lab(hosts)
    try:
        made.build(route, sysctls)
        yield made
    finally:
        made.teardown()
        signal.signal(signal.SIGTERM, previous)
