"""Synthetic, labelled table photos of Declaration Rummy cards.

``scene.SceneGenerator`` makes the images, ``cli`` writes datasets
(``python -m vision synth``), ``contact`` draws labelled contact sheets
(``python -m vision contact``).  See ``docs/synth.md``.
"""
