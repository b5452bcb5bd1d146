"""The appliance: the companion assembled from its config (wiring), its command line, the page's
address on the network, and the doctor that checks the devices. Only here is everything
imported together: see docs/ARCHITECTURE.md."""
