class A:
    def f(self):   
        x = 2
        y = 3
        return x
