import unittest

from calc import add


class TestMore(unittest.TestCase):
    def test_one_plus_two(self):
        self.assertEqual(add(1, 2), 3)
