"""The game engines, one package each (pure: see ``companion.game``); ``titles`` finds one by
its title. This package re-exports nothing: importing one game never loads the others."""
