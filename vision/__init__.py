"""The overhead camera (OpenCV): what lies where on the table.

- ``sources``: frames from picamera2, ``cv2.VideoCapture`` or image files (``frame_source``:
  what every source is; ``generated``: simulated cameras showing generated scenes);
- ``calibration``: ArUco markers at the play area's corners map pixels to millimetres;
- ``settle``: says when a throw has stopped moving, so readings are taken on still frames;
- ``pips`` (ordinary dice), ``cubes`` (Oraklos), ``tessons`` + ``seats`` (Ostrakon): readers,
  each reading with a confidence, low ones flagged for a person to confirm;
- ``synthetic``: generated scenes with exact ground truth, to measure the readers;
- ``arrays``: the NumPy array types that pass between them.

Like every adapter it knows no rules: it reports what it sees; the engines decide what it means.
"""
