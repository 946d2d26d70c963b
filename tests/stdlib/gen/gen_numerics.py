def generate(): pass
