"""The address phones reach the companion at, on the local network."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.config import Config
from companion.narration.catalog import Catalog

# TEST-NET-1 (RFC 5737): never routed on the Internet. Connecting a UDP socket sends nothing; it
# only asks the kernel which local address would carry the packet (the default route's).
PROBE = ("192.0.2.1", 9)
LOOPBACK = ("127.0.0.1", "localhost", "::1")  # [server] host values only this computer reaches
WILDCARD = ("0.0.0.0", "", "::")  # [server] host values meaning every interface


def lan_address() -> str | None:
    """This computer's IPv4 address on the local network, or None when it has none (no network
    yet). The address of the default route; failing that, the host name's, unless loopback."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(PROBE)
            address = str(probe.getsockname()[0])
    except OSError:  # no route at all: not connected
        try:
            address = socket.gethostbyname(socket.gethostname())
        except OSError:
            return None
    return None if ipaddress.ip_address(address).is_loopback else address


def page_url(host: str, port: int) -> str:
    """The page's address for ``host`` (an address or a name): no port shown for port 80."""
    return f"http://{host}/" if port == 80 else f"http://{host}:{port}/"


@dataclass
class PageAddress:
    """Where phones open the page: the address they reach it at (None: no network yet), and
    the name published by mDNS once it is (``companion.local``)."""

    address: str | None
    port: int
    local_only: bool
    names: Any = None  # web.mdns.NamePublisher

    @classmethod
    def find(cls, config: Config) -> PageAddress:
        address = config.host if config.host not in WILDCARD else lan_address()
        return cls(address, config.port, config.host in LOOPBACK)

    def publish(self, name: str, ready: Callable[[str | None], None]) -> None:
        """Publish ``name``.local in the background when the page is on the network, and call
        ``ready`` with the name taken (or None) once that is settled."""
        if self.address is None or self.local_only or not name:
            ready(None)
            return
        from web.mdns import NamePublisher

        self.names = NamePublisher(name, self.address, self.port, ready).start()

    def url(self, host: str) -> str:
        return page_url(host, self.port)

    def urls(self) -> tuple[list[str], str | None]:
        """The page's addresses, by name first, and the one for a QR code (by address: every
        phone reaches that; not every one resolves a .local name)."""
        if self.address is None:
            return [], None
        name = self.names.name if self.names is not None else None
        by_name = [self.url(name)] if name else []
        by_address = self.url(self.address)
        return [*by_name, by_address], by_address

    def names_answered(self) -> set[str]:
        """The names a request may give in its ``Host`` header besides an address and
        localhost: the published ``.local`` name, and this computer's own name (plain and
        ``.local``, as Avahi publishes it on a Raspberry Pi)."""
        own = socket.gethostname().lower()
        names = {own, f"{own}.local"}
        published = self.names.name if self.names is not None else None
        if published:
            names.add(published.lower())
        return names

    def ready_sentence(self, catalog: Catalog, name: str | None) -> str:
        if self.address is None:
            return catalog.text("general.ready_no_network")
        host = name or self.address
        said = (
            host
            if self.port == 80
            else catalog.text("general.address_port", host=host, port=self.port)
        )
        key = "general.ready_here" if self.local_only else "general.ready"
        return catalog.text(key, address=said)

    def close(self) -> None:
        if self.names is not None:
            self.names.close()
