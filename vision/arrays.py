"""The NumPy arrays that pass through ``vision``, by what they hold.

- ``Image``: 8-bit pixels: a BGR frame (height, width, 3), a grey image (height, width), or a
  mask of 0/1 or 0/255 as OpenCV takes them.
- ``FloatImage``: float32 pixels or planes (a scene's canvas before it is made 8-bit, a light
  field, brightness corrected for the light).
- ``Mask``: one bool per pixel.
- ``Labels``: an int32 label per pixel (connected components, watershed markers), or int32
  numbers of them (a component's box and area).
- ``Points``: coordinates as floats (float64, or float32 as some OpenCV functions give them),
  one row a point: (N, 2) pixels or millimetres, (N, 3) world points; or one point or vector.
- ``Matrix``: a float64 matrix: a 3×3 homography, a 2×3 affine map.
- ``Colours``: BGR colours or gains as floats: one colour, or one per pixel.

OpenCV's type stubs give every function's result as "an array of some number"
(``cv2.typing.MatLike``) whatever its input, and NumPy's lose the precision of a few (a float64
matrix's inverse is "some float"), so a result whose type the caller knows is named with
``u8``, ``f32``, ``f64`` or ``i32``: a statement for the type checker, nothing is converted or
checked at run time.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]
Labels = npt.NDArray[np.int32]
Points = npt.NDArray[np.floating]
Matrix = npt.NDArray[np.float64]
Colours = npt.NDArray[np.floating]


def u8(array: npt.NDArray[np.generic]) -> Image:
    """A result of 8-bit pixels (for most OpenCV functions, the input's type)."""
    return cast(Image, array)


def f32(array: npt.NDArray[np.generic]) -> FloatImage:
    """A result of float32 pixels."""
    return cast(FloatImage, array)


def f64(array: npt.NDArray[np.generic]) -> npt.NDArray[np.float64]:
    """A result of float64 numbers (coordinates, a homography)."""
    return cast(npt.NDArray[np.float64], array)


def i32(array: npt.NDArray[np.generic]) -> Labels:
    """A result of int32 numbers (labels, a component's statistics)."""
    return cast(Labels, array)
