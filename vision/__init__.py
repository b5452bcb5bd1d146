"""The overhead camera (OpenCV): reading thrown dice and revealed tessons.

Empty for now: the camera arrives with Oraklos and Ostrakon (see the project's issues). Like
every adapter it will know no rules: it reports what lies where on the table.
"""
