"""The daily deal: one game a day per person against three `expert` computers."""
