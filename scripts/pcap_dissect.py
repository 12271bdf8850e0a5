#!/usr/bin/env python3
"""pcap_dissect.py: decode a pcap file with scapy (an independent dissector) and print one JSON
object a frame: time (ns), addresses, EtherType, and for PFC frames (MAC control 0x8808) scapy's
own fields (opcode, class-enable bits, eight pause times), for 802.1Q data frames the priority,
IPv4 addresses and TCP ports, sequence and acknowledgement numbers, flags and payload length. Used by crates/cli/tests/pcap.rs.

Usage: pcap_dissect.py FILE.pcap"""
import json
import sys

from scapy.all import IP, TCP, Dot1Q, Ether, PcapReader
from scapy.contrib.mac_control import MACControlClassBasedFlowControl


def main(path):
    with PcapReader(path) as r:
        for p in r:
            e = p[Ether]
            d = {
                "ns": int(round(p.time * 1_000_000_000)),
                "caplen": len(p),
                "wirelen": p.wirelen,
                "dst": e.dst,
                "src": e.src,
                "type": e.type,
            }
            if MACControlClassBasedFlowControl in p:
                c = p[MACControlClassBasedFlowControl]
                d["opcode"] = c._op_code
                d["cev"] = sum(getattr(c, f"c{k}_enabled") << k for k in range(8))
                d["quanta"] = [getattr(c, f"c{k}_pause_time") for k in range(8)]
            if Dot1Q in p:
                d["prio"] = p[Dot1Q].prio
                d["vlan"] = p[Dot1Q].vlan
            if IP in p:
                d["ip_src"], d["ip_dst"], d["ip_len"] = p[IP].src, p[IP].dst, p[IP].len
            if TCP in p:
                t = p[TCP]
                d["sport"], d["dport"], d["seq"], d["flags"] = t.sport, t.dport, t.seq, str(t.flags)
                d["ack"] = t.ack
                d["tcp_len"] = p[IP].len - 4 * p[IP].ihl - 4 * t.dataofs
            print(json.dumps(d))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1])
