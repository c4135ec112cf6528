from calc import add


def test_zero():
    assert add(0, 0) == 0


def test_right_zero():
    assert add(5, 0) == 5


def test_two_plus_two():
    assert add(2, 2) == 0
