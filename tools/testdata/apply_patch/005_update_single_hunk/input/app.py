def greet(name):
    return "Hi " + name


def main():
    print(greet("world"))
