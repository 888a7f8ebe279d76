"""Lightnet for RotorHazard: race events run Lightnet scenes, heats reach the start blocks,
and Lightnet's UI is served at /lightnet on RotorHazard's port. See the README in the
Lightnet repository (integrations/rotorhazard) for installation and options."""
from .bridge import Bridge


def initialize(rhapi):
    Bridge(rhapi).install()
