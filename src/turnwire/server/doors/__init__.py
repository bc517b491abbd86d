"""One package per wire's door: its routes, its resume/stop routes and its request models.

Nothing imports a door but ``server.app``, where the doors are mounted.
"""
