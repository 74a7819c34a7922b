class Reader:
    def close(self):
        return None


class Writer:
    def close(self):
        self.flush()
        return None
