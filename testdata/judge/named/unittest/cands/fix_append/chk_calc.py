import unittest

from calc import add


class TestAdd(unittest.TestCase):
    def test_zero(self):
        self.assertEqual(add(0, 0), 0)

    def test_right_zero(self):
        self.assertEqual(add(5, 0), 5)

    def test_two_plus_two(self):
        self.assertEqual(add(2, 2), 4)

    def test_three_plus_four(self):
        self.assertEqual(add(3, 4), 7)
