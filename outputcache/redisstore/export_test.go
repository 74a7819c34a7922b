package redisstore

import "context"

// DeleteKeyForTest removes one key, as Redis's own eviction would.
func (s *Store) DeleteKeyForTest(ctx context.Context, key string) error {
	return s.rdb.Del(ctx, key).Err()
}
