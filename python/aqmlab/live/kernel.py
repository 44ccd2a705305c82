"""How a scenario's TCP settings map onto the Linux kernel's, and what the kernel cannot take.

The kernel sets some things per socket (congestion control, the largest window to advertise),
some per route (initial window, minimum RTO, advertised MSS) and some per network namespace
(SACK, ECN, timestamps, RACK-TLP). A live run gives each side of the dumbbell one namespace and
one route to the other side, so the per-route and per-namespace settings must agree across the
scenario's TCP groups; a setting that cannot be mapped is refused, naming its key (docs/live.md
has the table of every key).

>>> tcp = {"variant": "sack", "congestion_control": "cubic", "ecn": True, "timestamps": True,
...        "initial_window": 10, "min_rto": "200ms", "mss": "1448B", "rwnd": "4MiB"}
>>> k = kernel_tcp(tcp, "traffic[0].tcp", {"reno", "cubic"})
>>> k.per_socket, k.per_namespace["net.ipv4.tcp_sack"], k.per_route["rto_min"]
({'congestion_control': 'cubic', 'window_clamp': 4194304}, 1, '200ms')
>>> kernel_tcp({**tcp, "variant": "reno"}, "tcp", {"cubic"})
Traceback (most recent call last):
...
aqmlab.errors.InputError: tcp.variant: Linux recovers from loss as NewReno does ...
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aqmlab import _native
from aqmlab.errors import InputError

AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")

LARGEST_MSS = 1460
"""The devices' MTU (1500) less the IPv4 and TCP headers."""

TIMESTAMP_OPTION = 12
"""Bytes the timestamp option takes in every segment (RFC 7323 §3, padded)."""


def available_congestion_control() -> set[str]:
    """Return the congestion-control algorithms this kernel offers (empty if it says none)."""
    try:
        return set(AVAILABLE.read_text(encoding="ascii").split())
    except OSError:
        return set()


@dataclass(frozen=True)
class KernelTcp:
    """One TCP group's settings as the kernel takes them."""

    per_socket: dict[str, Any]
    """``congestion_control`` (``TCP_CONGESTION``) and ``window_clamp`` (``TCP_WINDOW_CLAMP``)."""
    per_route: dict[str, Any]
    """``initcwnd``, ``initrwnd``, ``rto_min`` and ``advmss``, as ``ip route`` takes them."""
    per_namespace: dict[str, int]
    """sysctl name → value."""


def kernel_tcp(tcp: dict[str, Any], where: str, available: set[str]) -> KernelTcp:
    """Map a resolved ``tcp`` table, found at ``where``, to the kernel's settings."""
    variant = tcp["variant"]
    if variant == "reno":
        raise InputError(
            f"{where}.variant",
            "Linux recovers from loss as NewReno does (RFC 6582), with SACK where both ends "
            'agree; it has no Reno recovery: set variant = "newreno" (SACK off) or "sack"',
        )
    cc = tcp.get("congestion_control", "reno")
    if cc not in available:
        raise InputError(
            f"{where}.congestion_control",
            f'this kernel offers {", ".join(sorted(available)) or "none"}, not "{cc}"',
        )
    # The kernel's advertised MSS counts the timestamp option's 12 bytes (RFC 7323 §3: 10,
    # padded to 12); the scenario's `mss` is the data a segment carries.
    timestamps = bool(tcp.get("timestamps", False))
    advmss = _native.quantity("size", tcp["mss"]) + (TIMESTAMP_OPTION if timestamps else 0)
    if advmss > LARGEST_MSS:
        raise InputError(f"{where}.mss",
                         f"at most {LARGEST_MSS - TIMESTAMP_OPTION * timestamps} B on the live "
                         "devices (MTU 1500)")  # fmt: skip
    rwnd = _native.quantity("size", tcp["rwnd"])
    # tcp_recovery = 1: RACK loss detection; tcp_early_retrans = 3: the tail loss probe (TLP).
    # Both 0: losses found by duplicate ACKs alone. Resolved tables of profiles that predate
    # the key leave it out: duplicate ACKs.
    rack = tcp.get("loss_detection", "dupack") == "rack-tlp"
    return KernelTcp(
        per_socket={"congestion_control": cc, "window_clamp": rwnd},
        per_route={
            "initcwnd": int(tcp["initial_window"]),
            "initrwnd": int(tcp["initial_window"]),
            "rto_min": f"{_native.quantity('time', tcp['min_rto']) // 1_000_000}ms",
            "advmss": advmss,
        },
        per_namespace={
            "net.ipv4.tcp_sack": int(variant == "sack"),
            "net.ipv4.tcp_ecn": int(bool(tcp["ecn"])),
            "net.ipv4.tcp_timestamps": int(timestamps),
            "net.ipv4.tcp_recovery": int(rack),
            "net.ipv4.tcp_early_retrans": 3 if rack else 0,
        },
    )


def agreed(groups: list[tuple[str, KernelTcp]]) -> tuple[dict[str, Any], dict[str, int]]:
    """Return the per-route and per-namespace settings every TCP group shares.

    ``groups`` pairs each group's key path with its settings; a setting on which two groups
    differ is refused, naming the second group's key.

    >>> a = KernelTcp({}, {"initcwnd": 10}, {"net.ipv4.tcp_ecn": 1})
    >>> agreed([("traffic[0].tcp", a), ("traffic[1].tcp", a)])
    ({'initcwnd': 10}, {'net.ipv4.tcp_ecn': 1})
    >>> b = KernelTcp({}, {"initcwnd": 4}, {"net.ipv4.tcp_ecn": 1})
    >>> agreed([("traffic[0].tcp", a), ("traffic[1].tcp", b)])
    Traceback (most recent call last):
    ...
    aqmlab.errors.InputError: traffic[1].tcp.initial_window: live mode sets it for all TCP ...
    """
    keys = {"initcwnd": "initial_window", "initrwnd": "initial_window", "rto_min": "min_rto",
            "advmss": "mss", "net.ipv4.tcp_sack": "variant", "net.ipv4.tcp_ecn": "ecn",
            "net.ipv4.tcp_timestamps": "timestamps", "net.ipv4.tcp_recovery": "loss_detection",
            "net.ipv4.tcp_early_retrans": "loss_detection"}  # fmt: skip
    if not groups:
        return {}, {}
    first_where, first = groups[0]
    for where, k in groups[1:]:
        for name, value in [*k.per_route.items(), *k.per_namespace.items()]:
            theirs = {**first.per_route, **first.per_namespace}[name]
            if value != theirs:
                raise InputError(
                    f"{where}.{keys[name]}",
                    "live mode sets it for all TCP groups at once (one route per side), and "
                    f"{first_where} has another",
                )
    return dict(first.per_route), dict(first.per_namespace)
