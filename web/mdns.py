"""The page's name on the local network, by multicast DNS: ``http://companion.local/``.

python-zeroconf answers the questions phones and laptops ask on the network ("who is
companion.local?") with the companion's address, and announces the page as an HTTP service
(which network browsers list). It shares port 5353 with Avahi, which Raspberry Pi OS runs for
the Pi's own name. When another machine already answers to the name, the next free one is
taken (``companion-2``, ``companion-3``…), as Avahi does, and that is the name announced.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

SERVICE = "_http._tcp.local."
ASK_MS = 1500  # how long to listen for another owner of a name before taking it
TRIES = 9


class NamePublisher:
    """Publishes ``name``.local for ``address`` on a background thread; ``published`` is
    called with the name taken (``None`` when none could be: no multicast, say)."""

    def __init__(
        self,
        name: str,
        address: str,
        port: int,
        published: Callable[[str | None], None] = lambda name: None,
    ) -> None:
        self.wanted = name
        self.address = address
        self.port = port
        self.name: str | None = None  # "companion.local" once published
        self._published = published
        self._zeroconf: Any = None
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._publish, name="mdns", daemon=True)

    def start(self) -> NamePublisher:
        self._thread.start()
        return self

    def wait(self, timeout: float | None = None) -> bool:
        """True once publishing is over (done or given up)."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _publish(self) -> None:
        try:
            from zeroconf import IPVersion, ServiceInfo, Zeroconf

            zeroconf = Zeroconf(interfaces=[self.address], ip_version=IPVersion.V4Only)
        except Exception as exc:  # no multicast on this interface, port 5353 refused...
            log.warning("the page is not published by name (%s): open it by its address", exc)
            self._published(None)
            return
        self._zeroconf = zeroconf
        try:
            for candidate in self._candidates():
                if self._closed.is_set():
                    return
                if self._owned_by_another(zeroconf, candidate):
                    log.info("%s.local answers from another machine: trying the next", candidate)
                    continue
                info = ServiceInfo(
                    SERVICE,
                    f"Tabletop companion ({candidate}).{SERVICE}",
                    addresses=[socket.inet_aton(self.address)],
                    port=self.port,
                    server=f"{candidate}.local.",
                    properties={"path": "/"},
                )
                zeroconf.register_service(info, allow_name_change=True)
                self.name = f"{candidate}.local"
                log.info("page published as http://%s%s/", self.name, _port_suffix(self.port))
                self._published(self.name)
                return
            log.warning("no free name like %s.local on this network", self.wanted)
        except Exception as exc:
            log.warning("the page is not published by name (%s): open it by its address", exc)
        self._published(None)

    def _candidates(self) -> list[str]:
        return [self.wanted] + [f"{self.wanted}-{n}" for n in range(2, TRIES + 1)]

    def _owned_by_another(self, zeroconf: Any, candidate: str) -> bool:
        from zeroconf import AddressResolverIPv4, IPVersion  # type: ignore[attr-defined]

        resolver = AddressResolverIPv4(f"{candidate}.local.")
        if not resolver.request(zeroconf, ASK_MS):
            return False
        found = {str(a) for a in resolver.ip_addresses_by_version(IPVersion.V4Only)}
        return bool(found - {self.address})

    def close(self) -> None:
        self._closed.set()
        self._thread.join(timeout=5)
        zeroconf = self._zeroconf
        if zeroconf is not None:
            zeroconf.unregister_all_services()
            zeroconf.close()


def _port_suffix(port: int) -> str:
    return "" if port == 80 else f":{port}"
