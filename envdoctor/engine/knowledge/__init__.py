"""Knowledge functions over the compatibility matrices, called from rule expressions."""
