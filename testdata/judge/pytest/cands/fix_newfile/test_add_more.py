from calc import add


def test_one_plus_two():
    assert add(1, 2) == 3
