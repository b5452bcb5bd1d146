"""The camera desks: what the overhead camera reads, turned into a game's actions (Oraklos's
throws, Ostrakon's tessons, game night's dice), and what to do when the camera is lost. They join
the adapters (vision/) to the core (companion/): see docs/ARCHITECTURE.md."""
